package dev.memwall.join.grace;

import dev.memwall.join.prefetch.BucketTable;
import dev.memwall.join.prefetch.SpillRecords;

/**
 * Which partitions a hybrid hash join keeps in memory (seed 004's split of one join's work between
 * two executors, here the in-memory hash table and the spill pipeline).
 *
 * <p>Every spilled byte is written once and read once; {@link PipelineModel} (eq. 1-7) gives the
 * spill step's response time from the measured rates, with the "disk" stage being the spill
 * directory (read {@code B_read}, write ratio {@code alpha}), the "bus" the memory bandwidth, and the
 * host the in-memory partitioning and joining. The plan keeps resident, in partition order, the
 * partitions that fit in memory beside the output pages of the spilled ones, as long as keeping one
 * more shortens the predicted time (it always does when disk and memory rates are positive, which
 * is why the classic hybrid join fills its memory; the model's prediction is kept for
 * {@code explain} and for callers comparing budgets).
 *
 * <p>Thread safety: stateless.
 */
public final class HybridSplit {
  private HybridSplit() {}

  /** The chosen resident partitions and the model's predicted seconds for the spilled remainder. */
  public record Plan(boolean[] resident, long residentTuples, double predictedSpillSeconds) {}

  /**
   * Chooses resident partitions.
   *
   * @param buildCounts build tuples per partition
   * @param probeTuples probe tuples in all (assumed spread like the build side)
   * @param memoryBytes the join's memory
   * @param pageBytes one output page (one per spilled partition while a side is partitioned)
   * @param hybrid false for plain GRACE: only empty partitions stay "resident"
   */
  public static Plan choose(long[] buildCounts, long probeTuples, long memoryBytes, int pageBytes, boolean hybrid,
      SpillRates rates) {
    int k = buildCounts.length;
    boolean[] resident = new boolean[k];
    long buildTotal = 0;
    int spilled = 0;
    for (int p = 0; p < k; p++) {
      buildTotal += buildCounts[p];
      if (buildCounts[p] == 0) {
        resident[p] = true; // nothing to build: its probe tuples are settled at once
      } else {
        spilled++;
      }
    }
    long residentTuples = 0;
    double best = predictedSpillSeconds(buildTotal, buildTotal, probeTuples, rates);
    if (hybrid && k == 1 && buildTotal * (long) BucketTable.BYTES_PER_TUPLE <= memoryBytes) {
      resident[0] = true;
      return new Plan(resident, buildTotal, 0);
    }
    if (hybrid) {
      for (int p = 0; p < k; p++) {
        if (resident[p]) {
          continue;
        }
        long after = residentTuples + buildCounts[p];
        long pages = (long) (spilled - 1) * pageBytes; // one side is partitioned at a time
        if (after * BucketTable.BYTES_PER_TUPLE + pages > memoryBytes) {
          continue;
        }
        double predicted = predictedSpillSeconds(buildTotal - after, buildTotal, probeTuples, rates);
        if (predicted < best || buildTotal == after) {
          resident[p] = true;
          residentTuples = after;
          spilled--;
          best = predicted;
        }
      }
    }
    return new Plan(resident, residentTuples, best);
  }

  /** Seed 004's eq. 1 for spilling {@code spilledBuild} of {@code buildTotal} build tuples and the probe tuples alike. */
  public static double predictedSpillSeconds(long spilledBuild, long buildTotal, long probeTuples, SpillRates rates) {
    if (spilledBuild <= 0 || buildTotal <= 0) {
      return 0;
    }
    double fraction = (double) spilledBuild / buildTotal;
    double bytes = fraction * (buildTotal + probeTuples) * SpillRecords.BYTES;
    PipelineModel.SystemParameters system = new PipelineModel.SystemParameters(rates.memoryBytesPerSecond(),
        rates.memoryBytesPerSecond(), rates.memoryBytesPerSecond(), rates.diskReadBytesPerSecond(),
        rates.diskWriteBytesPerSecond() / rates.diskReadBytesPerSecond(), 1);
    // written once (partition phase) and read once (join phase): N_in = N_out = the spilled bytes;
    // the host joins what it reads back (one instruction-equivalent per byte at the memory rate)
    PipelineModel.Step step = new PipelineModel.Step(bytes, bytes, bytes, 0, 1);
    return new PipelineModel(system, step).responseSeconds();
  }
}
