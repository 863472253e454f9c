package dev.memwall.spark;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.plan.ChunkStage;
import dev.memwall.core.plan.ExecutionContext;
import java.util.function.Consumer;

/**
 * The last step of a filter-only memwall plan over one batch: records the batch rows that reach it (the
 * rows every filter before it selected) into an array, and passes nothing on, so the plan materializes
 * no row. This is how a partition reader gets the selection of memwall's filter kernels out of a
 * {@link dev.memwall.core.plan.Plan} and hands the selected rows to Spark in place
 * ({@link SelectedVector}) instead of copying them.
 *
 * <p>Contract: the plan runs single-threaded ({@code threads(1)}) over a table of one batch, so rows
 * arrive in increasing order. {@link #reset} before each run, with room for every row of the batch.
 * Thread safety: none; one partition reader's thread.
 */
final class SelectionCapture implements ChunkStage.Narrowing {
  private int[] rows = new int[0];
  private int count;

  /** Empties the selection, with room for {@code capacity} rows; returns the array rows go to. */
  int[] reset(int capacity) {
    if (rows.length < capacity) {
      rows = new int[capacity];
    }
    count = 0;
    return rows;
  }

  /** The selected batch rows, in increasing order: the first {@link #count()} entries. */
  int[] rows() {
    return rows;
  }

  /** How many rows are selected. */
  int count() {
    return count;
  }

  @Override
  public Worker open(Input input, ExecutionContext context) {
    return new Worker() {
      @Override
      public void process(Chunk chunk, Consumer<Chunk> next) {
        int start = chunk.start();
        int selected = chunk.selected();
        for (int i = 0; i < selected; i++) {
          rows[count++] = start + chunk.position(i);
        }
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public String describe() {
    return "capture the selected rows (Spark reads them in place)";
  }
}
