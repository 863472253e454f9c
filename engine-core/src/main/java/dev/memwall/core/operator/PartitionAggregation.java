package dev.memwall.core.operator;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.memory.BudgetExceededException;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The last stage of a partitioned {@link SpillingAggregation}: each partition of the workers' runs
 * aggregated on its own into the result, and a partition whose table outgrows its share of the
 * memory spilled again, partitioned by further hash bits, and aggregated level by level (at most
 * {@value SpillingAggregation#MAX_LEVEL}).
 *
 * <p>Thread safety: the threads that aggregate partitions at once share one instance; each call
 * works on a partition of its own, and what they share is the operator's (its counters, its spill
 * directory, the memory share of a partition's table).
 */
final class PartitionAggregation {
  private final SpillingAggregation operator;

  PartitionAggregation(SpillingAggregation operator) {
    this.operator = operator;
  }

  /**
   * Aggregates the records of {@code segments} (one partition) and writes the groups to
   * {@code writer}; where they do not fit, spills runs partitioned at {@code level} and recurses.
   */
  void aggregate(List<PartialRuns.Segment> segments, int level, HashAggregator.ResultWriter writer,
      byte[] block, int recordBytes) {
    long total = PartialRuns.records(segments, recordBytes);
    if (total == 0) {
      return;
    }
    if (operator.spilled) {
      operator.depth.accumulateAndGet(level, Math::max); // partitions in memory only are no spill
    }
    Binder binder = new Binder(operator.schema);
    Overflow overflow = new Overflow(total, level, binder);
    try {
      PartialRuns.read(segments, recordBytes, block, (records, count) -> {
        for (int i = 0; i < count; i += Chunk.CAPACITY) {
          overflow.merge(records, (long) i * recordBytes, Math.min(Chunk.CAPACITY, count - i));
        }
      });
      if (overflow.writer == null) {
        try {
          writer.write(overflow.aggregator); // made by the merges: there were records
        } catch (BudgetExceededException e) {
          throw e.in(SpillingAggregation.OPERATOR, "output", "the result does not fit the memory budget");
        }
        return;
      }
      overflow.spillAggregator();
      overflow.closeAggregator();
      for (List<PartialRuns.Segment> partition : overflow.writer.partitions) {
        aggregate(partition, level + 1, writer, block, recordBytes);
      }
    } finally {
      overflow.close();
    }
  }

  /** One partition's aggregation: its table, and the runs it spilled when the table outgrew the memory. */
  private final class Overflow implements AutoCloseable {
    private final int level;
    private final Binder binder;
    private final long totalRecords;
    /** Null until the first merge, and after an overflow until the next: made where memory allows. */
    private HashAggregator aggregator;
    /** Writes the runs of this partition's sub-partitions; null until it first spills. */
    private PartialRuns.Writer writer;
    private long merged;

    /** The merge of a partition of {@code totalRecords} records at {@code level}. */
    Overflow(long totalRecords, int level, Binder binder) {
      this.level = level;
      this.binder = binder;
      this.totalRecords = totalRecords;
    }

    /** Folds {@code n} records at {@code offset} of {@code block}, spilling the table first where it may not grow. */
    void merge(MemorySegment block, long offset, int n) {
      boolean renewed = false;
      int waits = 0;
      while (true) {
        try {
          if (aggregator == null) {
            aggregator = operator.newAggregator(binder, "merge");
          }
          aggregator.reserveRoom(n);
          if (aggregator.footprintBytes() > operator.partitionShare && aggregator.groups() > 0 && level < SpillingAggregation.MAX_LEVEL) {
            overflow(null); // over its share of the memory the partitions are aggregated in at once
            continue;
          }
          aggregator.mergeRecords(block, offset, n);
          merged += n;
          return;
        } catch (BudgetExceededException e) {
          boolean empty = aggregator == null || aggregator.groups() == 0;
          if (aggregator != null && empty && !renewed) {
            // an empty table whose memory is all keys and states (grown in an earlier round): a new,
            // small one may build its slots where this one could not
            renewed = true;
            closeAggregator();
            continue;
          }
          if (empty && operator.threads > 1 && waits++ < SpillingAggregation.MAX_WAITS) {
            // the partitions aggregated on the other threads hold the memory for a moment: wait for them
            ExecutionControl.checkpoint();
            java.util.concurrent.locks.LockSupport.parkNanos(SpillingAggregation.WAIT_NANOS);
            continue;
          }
          if (empty) {
            throw e.in(SpillingAggregation.OPERATOR, "merge", "even an empty hash table cannot take one block of spilled groups; give the"
                + " query more memory");
          }
          overflow(e);
        }
      }
    }

    /**
     * Spills the table as a run of this partition's sub-partitions and starts again with it empty:
     * because a growth was refused ({@code refusal}), or (null) because it grew past its share.
     */
    private void overflow(BudgetExceededException refusal) {
      if (level >= SpillingAggregation.MAX_LEVEL) {
        throw refusal.in(SpillingAggregation.OPERATOR, "merge", "a partition still does not fit after " + SpillingAggregation.MAX_LEVEL
            + " levels of re-partitioning; give the query more memory");
      }
      if (writer == null) {
        writer = new PartialRuns.Writer(operator.directory(refusal, "merge").newFile("aggregation-level-" + level), level,
            PartialRuns.bitsFor(merged, totalRecords), aggregator.recordBytes());
      }
      spillAggregator();
      if (refusal != null && aggregator.footprintBytes() <= operator.partitionShare) {
        aggregator.clear(); // the same memory takes the next groups
      } else {
        closeAggregator(); // the next merge makes a new one
      }
    }

    void spillAggregator() {
      writer.write(aggregator, 0);
      operator.runs.incrementAndGet();
    }

    void closeAggregator() {
      if (aggregator != null) {
        aggregator.close();
        aggregator = null;
      }
    }

    @Override
    public void close() {
      closeAggregator();
      if (writer != null) {
        writer.close();
      }
    }
  }
}
