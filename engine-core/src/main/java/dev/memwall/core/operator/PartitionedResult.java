package dev.memwall.core.operator;

import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.expr.Binder;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The result of a {@link SpillingAggregation} whose groups went out as partitioned runs: every partition
 * of the workers' runs aggregated on its own ({@link PartitionAggregation}), on the operator's threads,
 * each claiming the next partition. {@link #all} aggregates every partition into one table; as
 * {@link ResultParts}, each {@link #next} aggregates a round of partitions, each thread until it holds
 * about as many groups as half its share of the working memory holds records (at most
 * {@value #PART_GROUPS}), so that the output memory holds one round's groups, however many groups there
 * are.
 *
 * <p>Ownership: the parts own the operator (closing them closes it, which frees the runs); each table
 * returned is the caller's. Thread safety: one thread calls; each round runs on the operator's threads.
 */
final class PartitionedResult implements ResultParts {
  /** The most groups a thread aggregates into one part before it stops claiming partitions. */
  static final long PART_GROUPS = 64 * 1024;
  /** The fewest (a partition is not split between parts, so a part may hold more). */
  private static final long MIN_PART_GROUPS = 1024;

  private final SpillingAggregation operator;
  private final List<PartialRuns.Writer> writers;
  private final int partitions;
  private final int tasks;
  private final int recordBytes;
  private final long records;
  /** The groups after which a thread stops claiming partitions for the part being made. */
  private final long partGroups;
  /** Reports the operator's work once the last partition is aggregated. */
  private final Runnable finished;
  private final AtomicInteger next = new AtomicInteger();
  private boolean done;

  /**
   * @param writers the workers' runs, all written and flushed
   * @param partitions how many partitions the runs have (the operator's {@code partitionShare} set for them)
   * @param recordBytes the bytes of one partial group's record
   */
  PartitionedResult(SpillingAggregation operator, List<PartialRuns.Writer> writers, int partitions, int recordBytes,
      Runnable finished) {
    this.operator = operator;
    this.writers = writers;
    this.partitions = partitions;
    this.recordBytes = recordBytes;
    this.finished = finished;
    long count = 0;
    for (PartialRuns.Writer writer : writers) {
      for (List<PartialRuns.Segment> segments : writer.partitions) {
        count += PartialRuns.records(segments, recordBytes);
      }
    }
    this.records = count;
    this.tasks = Math.min(operator.threads, partitions);
    // a part's columns take about a record's bytes a group, and its builder may hold twice what it fills
    this.partGroups = Math.clamp(operator.partitionShare / (2L * recordBytes), MIN_PART_GROUPS, PART_GROUPS);
  }

  /** Every partition aggregated into one table, the caller's. */
  Table all() {
    return round(Long.MAX_VALUE);
  }

  @Override
  public Table next() {
    if (next.get() >= partitions) {
      if (!done) {
        done = true;
        finished.run();
      }
      return null;
    }
    return round(partGroups);
  }

  /** Aggregates partitions, each thread claiming the next until it holds {@code groupsPerTask} groups or none is left. */
  private Table round(long groupsPerTask) {
    List<HashAggregator.ResultWriter> results = new ArrayList<>();
    try {
      HashAggregator template = operator.newAggregator(new Binder(operator.schema), "output");
      try {
        for (int t = 0; t < tasks; t++) {
          results.add(template.resultWriter(records)); // the whole result's estimate: every part encodes alike
        }
      } finally {
        template.close();
      }
      PartitionAggregation aggregation = new PartitionAggregation(operator);
      List<Runnable> work = new ArrayList<>();
      for (HashAggregator.ResultWriter result : results) {
        work.add(() -> {
          byte[] block = PartialRuns.readBlock(recordBytes);
          while (result.groups() < groupsPerTask) {
            int p = next.getAndIncrement();
            if (p >= partitions) {
              return;
            }
            List<PartialRuns.Segment> segments = new ArrayList<>();
            for (PartialRuns.Writer writer : writers) {
              segments.addAll(writer.partitions.get(p));
            }
            aggregation.aggregate(segments, 1, result, block, recordBytes);
            PartialRuns.release(segments); // aggregated: its records in memory are not needed again
          }
        });
      }
      Workers.runAll("memwall-aggregation-partitions", work);
      try {
        return HashAggregator.ResultWriter.build(results);
      } catch (BudgetExceededException e) {
        throw e.in(SpillingAggregation.OPERATOR, "output", "the result does not fit the memory budget");
      }
    } finally {
      results.forEach(HashAggregator.ResultWriter::close);
    }
  }

  @Override
  public void close() {
    operator.close();
  }
}
