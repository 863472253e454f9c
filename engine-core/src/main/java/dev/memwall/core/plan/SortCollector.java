package dev.memwall.core.plan;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.ExternalSort;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.List;

/**
 * One worker's rows for an {@link ExternalSort}: a {@link Collector} in a memory of the worker's own
 * (a child of the sort's working memory, so the worker knows what it holds), which hands its rows to
 * the sort as a run whenever they {@linkplain ExternalSort#runFull fill its share}, before the next
 * chunk is taken. Where the sort's memory has no bound, the rows are collected in it directly and
 * never cut.
 *
 * <p>Ownership: closing frees the rows not handed over and the worker's memory. Thread safety: one
 * worker.
 */
final class SortCollector implements AutoCloseable {
  private final ExternalSort sort;
  private final int worker;
  private final EngineMemory memory;
  private final boolean ownsMemory;
  private final Collector collector;
  private long runs;
  /** Rows collected since the last run was cut. */
  private long rows;

  SortCollector(Binder binder, List<NamedExpr> columns, ExternalSort sort, int worker) {
    this.sort = sort;
    this.worker = worker;
    this.ownsMemory = sort.runBytes() < Long.MAX_VALUE / 8;
    this.memory = ownsMemory ? sort.memory().child(sort.memory().budget().name() + " / worker " + worker,
        Long.MAX_VALUE, 0) : sort.memory();
    try {
      this.collector = new Collector(binder, columns, memory.arrow(), sort.batchRows());
    } catch (RuntimeException | Error e) {
      if (ownsMemory) {
        memory.close();
      }
      throw e;
    }
  }

  void consume(Chunk chunk) {
    if (ownsMemory && sort.runFull(memory.allocatedBytes(), rows)) {
      cutRun();
    }
    try {
      collector.consume(chunk);
      rows += chunk.selected();
    } catch (BudgetExceededException e) {
      throw e.in(ExternalSort.OPERATOR, "collect", sort.runBytes() < Long.MAX_VALUE / 8
          ? "the rows of one chunk did not fit beside the runs being written; give the query more memory"
          : "spilling is off or the memory has no room; give the query more memory");
    }
  }

  /** Hands the rows collected so far to the sort as a run. */
  private void cutRun() {
    List<TableBuilder> parts = collector.takeParts();
    rows = 0;
    try {
      Table run;
      try {
        run = TableBuilder.concatenate(parts);
      } catch (BudgetExceededException e) {
        throw e.in(ExternalSort.OPERATOR, "collect", "the memory does not hold a run's rows as one table");
      }
      sort.spill(worker, runs++, run);
    } finally {
      parts.forEach(TableBuilder::close);
    }
  }

  /** The rows not yet handed over, for {@link ExternalSort#finish}. */
  List<TableBuilder> parts() {
    return collector.parts();
  }

  @Override
  public void close() {
    try {
      collector.close();
    } finally {
      if (ownsMemory) {
        memory.close();
      }
    }
  }
}
