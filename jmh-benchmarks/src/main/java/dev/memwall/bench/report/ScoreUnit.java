package dev.memwall.bench.report;

import java.util.List;
import java.util.Locale;

/**
 * A JMH score unit: time per operation ({@code ms/op}, lower is better), operations per time
 * ({@code ops/s}, higher is better), or anything else (kept as it is, no direction known).
 *
 * <p>Scores of one report group are converted to one unit, chosen by {@link #readableFor} so that
 * the smallest score is at least 1 in the coarsest unit that allows it: 45 ms/op stays in ms, 0.3
 * ms/op becomes 300 us/op.
 *
 * @param label the unit as printed, such as {@code ms/op}
 * @param kind whether it is time per operation, operations per time, or other
 * @param seconds the time unit in seconds (1e-3 for {@code ms/op} and {@code ops/ms}); NaN for other units
 */
public record ScoreUnit(String label, Kind kind, double seconds) {
  /** What a unit measures, and which direction is better. */
  public enum Kind {
    /** Time per operation: lower is better. */
    TIME_PER_OP,
    /** Operations per time: higher is better. */
    OPS_PER_TIME,
    /** A unit this report cannot convert; no direction. */
    OTHER
  }

  /** JMH's time unit abbreviations, finest first. */
  private static final List<String> TIME_UNITS = List.of("ns", "us", "ms", "s", "min", "hr", "day");
  private static final double[] TIME_SECONDS = {1e-9, 1e-6, 1e-3, 1, 60, 3600, 86400};
  /** The units a group is normalised to: ns, us, ms and s. */
  private static final List<String> NORMALISED_TIME_UNITS = TIME_UNITS.subList(0, 4);

  /** Parses a JMH unit; units other than {@code <time>/op} and {@code ops/<time>} are {@link Kind#OTHER}. */
  public static ScoreUnit parse(String label) {
    String unit = label.strip();
    int slash = unit.indexOf('/');
    if (slash > 0) {
      String numerator = unit.substring(0, slash);
      String denominator = unit.substring(slash + 1);
      int time;
      if (denominator.equals("op") && (time = timeUnit(numerator)) >= 0) {
        return new ScoreUnit(unit, Kind.TIME_PER_OP, TIME_SECONDS[time]);
      }
      if (numerator.equals("ops") && (time = timeUnit(denominator)) >= 0) {
        return new ScoreUnit(unit, Kind.OPS_PER_TIME, TIME_SECONDS[time]);
      }
    }
    return new ScoreUnit(unit, Kind.OTHER, Double.NaN);
  }

  private static int timeUnit(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return TIME_UNITS.indexOf(n.equals("\u00b5s") ? "us" : n);
  }

  /** Whether scores in this unit and in {@code other} can be converted into each other. */
  public boolean convertibleTo(ScoreUnit other) {
    return kind != Kind.OTHER ? kind == other.kind : label.equals(other.label);
  }

  /** {@code value} in this unit, expressed in {@code target}; the units must be convertible. */
  public double convert(double value, ScoreUnit target) {
    if (!convertibleTo(target)) {
      throw new IllegalArgumentException("cannot convert " + label + " to " + target.label);
    }
    return switch (kind) {
      case TIME_PER_OP -> value * seconds / target.seconds;
      case OPS_PER_TIME -> value * target.seconds / seconds;
      case OTHER -> value;
    };
  }

  /** Whether a larger score is better ({@code ops/s}); false for time per operation and other units. */
  public boolean higherIsBetter() {
    return kind == Kind.OPS_PER_TIME;
  }

  /**
   * The unit among ns, us, ms and s (per op, or ops per) of this kind in which the smallest of
   * {@code values} (given in this unit) is at least 1 and as small as possible; the unit itself for
   * {@link Kind#OTHER}.
   */
  public ScoreUnit readableFor(double[] values) {
    if (kind == Kind.OTHER) {
      return this;
    }
    double min = Double.POSITIVE_INFINITY;
    for (double v : values) {
      if (Double.isFinite(v) && v > 0) {
        min = Math.min(min, v);
      }
    }
    if (min == Double.POSITIVE_INFINITY) {
      return this;
    }
    ScoreUnit best = null;
    double bestMin = Double.NaN;
    for (String time : NORMALISED_TIME_UNITS) {
      ScoreUnit candidate = parse(kind == Kind.TIME_PER_OP ? time + "/op" : "ops/" + time);
      double converted = convert(min, candidate);
      boolean better = best == null
          || (converted >= 1 && (bestMin < 1 || converted < bestMin))
          || (converted < 1 && bestMin < 1 && converted > bestMin);
      if (better) {
        best = candidate;
        bestMin = converted;
      }
    }
    return best;
  }
}
