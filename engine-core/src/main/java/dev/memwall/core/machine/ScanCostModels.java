package dev.memwall.core.machine;

import java.util.ArrayList;
import java.util.List;

/**
 * The cost models of seed 000 (section 2.2) for its simple scan (one byte read every {@code s}
 * bytes), generalised from the seed's two levels (L2, memory) to every cache level of the profile,
 * with their free parameters fitted to the measured {@link MachineProfile#strideScan()}.
 *
 * <p>Per iteration, cache level {@code i} (line {@code LS_i}) misses {@code M_i(s) = min(s / LS_i,
 * 1)} times, and each miss costs the latency {@code l_{i+1}} of the level below it (the next
 * cache's hit latency, or T1 for memory):
 *
 * <ul>
 *   <li>{@link Model#MODEL_1}: no overlap, {@code T = T_CPU + sum_i M_i l_{i+1}}.
 *   <li>{@link Model#MODEL_2}: costs combined level by level with the overlap function {@code O(o,
 *       x, y) = x + y - o min(x, y)}, where the degree of overlap {@code o_i(s)} rises linearly from
 *       0 at {@code s = LS_i / q} to 1 at {@code s = LS_i}; with full overlap a miss served by a
 *       cache costs {@code 1/q} of its latency and one served by memory costs {@code l_min}, the
 *       time to move a line at full bandwidth: {@code T_i = M_i (1 - o_i (1 - 1/q)) l_{i+1}} and
 *       {@code T_mem = M (1 - o (1 - l_min / l_mem)) l_mem}. (The seed's text of these two
 *       formulas is garbled in our copy; this is the reading its prose implies.)
 *   <li>{@link Model#MODEL_3}: model 2 with every cache-to-cache overlap at 1 for all strides (the
 *       seed's {@code o_1 = 1}: the core loads several lines at once even at small strides).
 *   <li>{@link Model#IDEAL}: full overlap everywhere, {@code T = max(T_CPU, T_i)}.
 * </ul>
 *
 * <p>{@code q} (concurrent misses) and {@code l_min} are fitted by least squares on the logarithm
 * of the times (a grid search), separately for models 2, 3 and ideal; model 1 has no free
 * parameter. Immutable and thread-safe.
 */
public final class ScanCostModels {
  /** The seed's models, in its names. */
  public enum Model {
    MODEL_1("model 1"), MODEL_2("model 2"), MODEL_3("model 3"), IDEAL("ideal");

    private final String label;

    Model(String label) {
      this.label = label;
    }

    /** The name the seed's Fig. 5 gives the curve. */
    public String label() {
      return label;
    }
  }

  /**
   * A cache level as the models see it.
   *
   * @param lineBytes the level's line size
   * @param nextLatencyNanos what one of its misses costs: the latency of the level below it
   * @param missesToMemory whether the level below is memory (the last level)
   */
  public record Level(int lineBytes, double nextLatencyNanos, boolean missesToMemory) {}

  /**
   * A model's fitted parameters and how well it fits.
   *
   * @param concurrency q, the misses in flight at once (1 for model 1)
   * @param lineTransferNanos l_min, the least time to bring in a line from memory
   * @param errorFactor {@code exp} of the root-mean-square of {@code log(predicted / measured)}: 1.2
   *     means the model is typically about 20% off, 10 that it is off by an order of magnitude
   */
  public record Fit(Model model, double concurrency, double lineTransferNanos, double errorFactor) {}

  private final MachineProfile.StridePoint[] measured;
  private final List<Level> levels;
  private final double bandwidthLineNanos;
  private final List<Fit> fits;

  private ScanCostModels(List<MachineProfile.StridePoint> measured, List<Level> levels, double bandwidthLineNanos) {
    this.measured = measured.toArray(MachineProfile.StridePoint[]::new);
    this.levels = List.copyOf(levels);
    this.bandwidthLineNanos = bandwidthLineNanos;
    List<Fit> fitted = new ArrayList<>();
    for (Model model : Model.values()) {
      fitted.add(fit(model));
    }
    this.fits = List.copyOf(fitted);
  }

  /**
   * Fits the models to the profile's scan experiment, with latencies from its caches and T1 and
   * the line transfer time from its one-core read bandwidth (the start of the {@code l_min} search).
   *
   * @throws IllegalArgumentException if the profile has no scan experiment or no cache latencies
   */
  public static ScanCostModels fit(MachineProfile profile) {
    if (profile.strideScan().isEmpty()) {
      throw new IllegalArgumentException("the machine profile holds no scan experiment: run ./memwall calibrate --refresh");
    }
    List<Level> levels = new ArrayList<>();
    List<MachineProfile.MeasuredCache> caches = profile.caches();
    for (int i = 0; i < caches.size(); i++) {
      boolean last = i + 1 == caches.size();
      double next = last ? profile.missLatencyNanos() : caches.get(i + 1).hitLatencyNanos();
      if (!Double.isNaN(next)) {
        levels.add(new Level(caches.get(i).cache().lineBytes(), next, last));
      }
    }
    if (levels.isEmpty() || !levels.getLast().missesToMemory()) {
      throw new IllegalArgumentException("the machine profile lacks cache latencies for the scan models");
    }
    double lineNanos = levels.getLast().lineBytes() / profile.bandwidth().readOneCore();
    return of(profile.strideScan(), levels, lineNanos);
  }

  /** The models over explicit levels; {@code bandwidthLineNanos} starts the {@code l_min} search. */
  static ScanCostModels of(List<MachineProfile.StridePoint> measured, List<Level> levels, double bandwidthLineNanos) {
    return new ScanCostModels(measured, levels, bandwidthLineNanos);
  }

  /** The fit of every model, in {@link Model} order. */
  public List<Fit> fits() {
    return fits;
  }

  /** The fit of {@code model}. */
  public Fit fitOf(Model model) {
    return fits.get(model.ordinal());
  }

  /** The fitted model's time per iteration at {@code strideBytes}, with T_CPU measured at the nearest stride. */
  public double predict(Model model, int strideBytes) {
    Fit fit = fitOf(model);
    return predict(model, strideBytes, cpuNanosNear(strideBytes), fit.concurrency(), fit.lineTransferNanos());
  }

  private double cpuNanosNear(int strideBytes) {
    MachineProfile.StridePoint nearest = measured[0];
    for (MachineProfile.StridePoint point : measured) {
      if (Math.abs(point.strideBytes() - strideBytes) < Math.abs(nearest.strideBytes() - strideBytes)) {
        nearest = point;
      }
    }
    return nearest.cpuNanosPerIteration();
  }

  /** The seed's overlap function: {@code x + y} without overlap ({@code o = 0}), {@code max(x, y)} with full overlap. */
  public static double overlap(double degree, double x, double y) {
    return x + y - degree * Math.min(x, y);
  }

  /** Misses per iteration of a level with {@code lineBytes} lines at {@code strideBytes}. */
  static double misses(int strideBytes, int lineBytes) {
    return Math.min((double) strideBytes / lineBytes, 1);
  }

  /** The degree of overlap: 0 up to a stride of {@code LS / q}, rising linearly to 1 at {@code LS}. */
  static double overlapDegree(int strideBytes, int lineBytes, double concurrency) {
    double start = lineBytes / concurrency;
    if (strideBytes <= start) {
      return 0;
    }
    return strideBytes >= lineBytes ? 1 : (strideBytes - start) / (lineBytes - start);
  }

  double predict(Model model, int strideBytes, double cpuNanos, double q, double lineTransferNanos) {
    double time = cpuNanos;
    for (Level level : levels) {
      double misses = misses(strideBytes, level.lineBytes());
      double degree = switch (model) {
        case MODEL_1 -> 0;
        case MODEL_2 -> overlapDegree(strideBytes, level.lineBytes(), q);
        case MODEL_3 -> level.missesToMemory() ? overlapDegree(strideBytes, level.lineBytes(), q) : 1;
        case IDEAL -> 1;
      };
      double fullOverlapShare = level.missesToMemory() ? lineTransferNanos / level.nextLatencyNanos() : 1 / q;
      double cost = misses * (1 - degree * (1 - fullOverlapShare)) * level.nextLatencyNanos();
      time = model == Model.MODEL_1 ? time + cost : overlap(degree, time, cost);
    }
    return time;
  }

  private Fit fit(Model model) {
    if (model == Model.MODEL_1) {
      return new Fit(model, 1, bandwidthLineNanos, errorFactor(model, 1, bandwidthLineNanos));
    }
    Fit best = null;
    for (double q = 1; q <= 64; q += 0.25) {
      for (int step = -16; step <= 16; step++) {
        double lineNanos = bandwidthLineNanos * Math.pow(2, step / 8.0);
        double error = errorFactor(model, q, lineNanos);
        if (best == null || error < best.errorFactor()) {
          best = new Fit(model, q, lineNanos, error);
        }
      }
    }
    return best;
  }

  private double errorFactor(Model model, double q, double lineNanos) {
    double sumOfSquares = 0;
    for (MachineProfile.StridePoint point : measured) {
      double predicted = predict(model, point.strideBytes(), point.cpuNanosPerIteration(), q, lineNanos);
      double logRatio = Math.log(predicted / point.nanosPerIteration());
      sumOfSquares += logRatio * logRatio;
    }
    return Math.exp(Math.sqrt(sumOfSquares / measured.length));
  }
}
