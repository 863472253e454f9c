package dev.memwall.core.plan;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.ReadableSchema;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Where a pipeline's workers claim their rows, a morsel (at most {@link #MORSEL_ROWS} rows of one
 * batch) at a time: the batches of a table, or the batches of a stream as they arrive. A worker
 * {@linkplain #claim claims} a morsel, runs it through the pipeline and {@linkplain #release releases}
 * it; a streamed batch is closed as soon as every morsel cut from it has been released, so a stream's
 * batches are never held all at once.
 *
 * <p>Thread safety: claim and release may be called by all workers at once. {@link #close} (after
 * the workers stopped, also when they failed) closes the streamed batches still held.
 */
abstract sealed class Morsels implements AutoCloseable {
  /** Rows a worker claims at a time. */
  static final int MORSEL_ROWS = 16 * Chunk.CAPACITY;

  /** A worker's current morsel: rows {@code [start, start + rows)} of {@code batch}. */
  static final class Claim {
    Batch batch;
    int start;
    int rows;
    /** The streamed batch the morsel belongs to (null for a table's). */
    private Object holder;
  }

  /** Puts the next morsel into {@code claim}; false when none is left. */
  abstract boolean claim(Claim claim);

  /** The worker is done with the morsel it claimed into {@code claim}. */
  abstract void release(Claim claim);

  /** The most workers that can have work (a table's morsel count; unknown for a stream). */
  abstract int parallelism();

  @Override
  public abstract void close();

  static Morsels of(Table table) {
    return new OfTable(table.batches(), false);
  }

  /**
   * A table's batches for one worker, which claims its morsels in order: for a table whose row order
   * is the result's (an ORDER BY's output), which workers claiming morsels at once and collecting
   * them each into its own part would give back in another order.
   */
  static Morsels inOrder(Table table) {
    return new OfTable(table.batches(), true);
  }

  /** The batches of {@code stream}, read through roots of {@code readable}'s columns. */
  static Morsels of(BatchStream stream, ReadableSchema readable) {
    return new OfStream(stream, readable);
  }

  /** A table's batches, cut into morsels up front. */
  static final class OfTable extends Morsels {
    private final List<Batch> batches;
    private final List<long[]> morsels;
    private final AtomicInteger next = new AtomicInteger();
    private final boolean inOrder;

    OfTable(List<Batch> batches, boolean inOrder) {
      this.batches = batches;
      this.morsels = cut(batches);
      this.inOrder = inOrder;
    }

    /**
     * The batches cut into morsels of at most {@link #MORSEL_ROWS} rows: {batch, first row, rows}.
     * A method of its own so that the code that runs once per pipeline has no loop over the data: a
     * loop's back edges would have C2 compile it (with everything it calls) on stack, again for each
     * query whose types differ, while the workers wait for the compiler.
     */
    private static List<long[]> cut(List<Batch> batches) {
      List<long[]> morsels = new ArrayList<>();
      for (int b = 0; b < batches.size(); b++) {
        for (int start = 0; start < batches.get(b).rowCount(); start += MORSEL_ROWS) {
          morsels.add(new long[] {b, start, Math.min(MORSEL_ROWS, batches.get(b).rowCount() - start)});
        }
      }
      return morsels;
    }

    @Override
    boolean claim(Claim claim) {
      int m = next.getAndIncrement();
      if (m >= morsels.size()) {
        return false;
      }
      long[] morsel = morsels.get(m);
      claim.batch = batches.get((int) morsel[0]);
      claim.start = (int) morsel[1];
      claim.rows = (int) morsel[2];
      return true;
    }

    @Override
    void release(Claim claim) {}

    @Override
    int parallelism() {
      return inOrder ? Math.min(1, morsels.size()) : morsels.size();
    }

    @Override
    public void close() {}
  }

  /** A stream's batches, pulled when the workers have claimed every morsel of the ones before. */
  static final class OfStream extends Morsels {
    private final BatchStream stream;
    private final ReadableSchema readable;
    /** Streamed batches not yet closed, with the morsels of each still out. */
    private final Map<Held, Boolean> open = new IdentityHashMap<>();
    private Held current;
    private boolean ended;

    /** A streamed batch: its root, how far it has been handed out, and its morsels still running. */
    private static final class Held {
      final VectorSchemaRoot root;
      final Batch batch;
      int handedOut;
      int running;

      Held(VectorSchemaRoot root, Batch batch) {
        this.root = root;
        this.batch = batch;
      }
    }

    OfStream(BatchStream stream, ReadableSchema readable) {
      this.stream = stream;
      this.readable = readable;
    }

    @Override
    synchronized boolean claim(Claim claim) {
      while (true) {
        if (current != null && current.handedOut < current.batch.rowCount()) {
          claim.batch = current.batch;
          claim.start = current.handedOut;
          claim.rows = Math.min(MORSEL_ROWS, current.batch.rowCount() - current.handedOut);
          claim.holder = current;
          current.handedOut += claim.rows;
          current.running++;
          return true;
        }
        if (current != null) {
          Held done = current;
          current = null;
          closeIfDone(done);
        }
        if (ended) {
          return false;
        }
        VectorSchemaRoot root = stream.next();
        if (root == null) {
          ended = true;
          return false;
        }
        Batch batch;
        try {
          batch = new Batch(readable.narrow(root), stream.dictionaries()); // the root is closed whole
        } catch (RuntimeException e) {
          root.close();
          throw e;
        }
        current = new Held(root, batch);
        open.put(current, Boolean.TRUE);
      }
    }

    @Override
    synchronized void release(Claim claim) {
      Held held = (Held) claim.holder;
      claim.holder = null;
      held.running--;
      if (held != current) {
        closeIfDone(held);
      }
    }

    private void closeIfDone(Held held) {
      if (held.running == 0 && held.handedOut >= held.batch.rowCount()) {
        open.remove(held);
        held.root.close();
      }
    }

    @Override
    int parallelism() {
      return Integer.MAX_VALUE;
    }

    @Override
    public synchronized void close() {
      ended = true;
      current = null;
      open.keySet().forEach(held -> held.root.close());
      open.clear();
    }
  }
}
