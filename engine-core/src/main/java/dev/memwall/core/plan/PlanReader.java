package dev.memwall.core.plan;

import dev.memwall.core.arrow.StandardBatchCopier;
import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A plan's result as an Arrow {@link ArrowReader} ({@link Plan#stream}): standard Arrow batches in the
 * host's allocator, produced round by round as the host loads them. See {@link Plan#stream} for the
 * contract.
 */
final class PlanReader extends ArrowReader {
  /** The result in pieces: each call runs the plan further and returns the rows it produced. */
  interface Rounds extends AutoCloseable {
    /** The next rows (the caller's to close; may have no rows), or null once the result is complete. */
    Table next();

    @Override
    void close();
  }

  private final Schema schema;
  private final ExecutionContext context;
  private final Supplier<Rounds> start;
  /** Closed after the rounds: what the plan's stages use (null: nothing). */
  private AutoCloseable resources;
  private Rounds rounds;
  private Table current;
  private int nextBatch;
  private long deadlineNanos;
  private long bytes;
  private boolean closed;

  PlanReader(BufferAllocator allocator, Schema schema, ExecutionContext context, Supplier<Rounds> start,
      AutoCloseable resources) {
    super(allocator);
    this.schema = schema;
    this.context = context;
    this.start = start;
    this.resources = resources;
  }

  @Override
  protected Schema readSchema() {
    return schema;
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    if (closed) {
      throw new IllegalStateException("reader is closed");
    }
    prepareLoadNextBatch();
    while (true) {
      if (current != null) {
        while (nextBatch < current.batches().size()) {
          Batch batch = current.batches().get(nextBatch++);
          if (batch.rowCount() > 0) {
            bytes += StandardBatchCopier.copy(batch, getVectorSchemaRoot());
            return true;
          }
        }
        current.close();
        current = null;
      }
      current = controlled(() -> {
        if (rounds == null) {
          rounds = start.get();
        }
        return rounds.next();
      });
      nextBatch = 0;
      if (current == null) {
        return false;
      }
    }
  }

  /** Runs a step of the plan under the context's controls, its timeout counted from the first load. */
  private <T> T controlled(Supplier<T> work) {
    long timeout = context.timeout().map(java.time.Duration::toNanos).orElse(0L);
    long remaining = 0;
    if (timeout > 0) {
      if (deadlineNanos == 0) {
        deadlineNanos = System.nanoTime() + timeout;
      }
      remaining = deadlineNanos - System.nanoTime();
      if (remaining <= 0) {
        throw new QueryCancelledException(QueryCancelledException.Reason.DEADLINE, "query ran past its deadline");
      }
    }
    return ExecutionControl.run(context.executor().orElse(null), context.cancellation().orElse(null), remaining, work);
  }

  @Override
  public long bytesRead() {
    return bytes;
  }

  @Override
  protected void closeReadSource() {
    closed = true;
    try {
      if (current != null) {
        current.close();
        current = null;
      }
    } finally {
      try {
        if (rounds != null) {
          rounds.close();
          rounds = null;
        }
      } finally {
        if (resources != null) {
          AutoCloseable closing = resources;
          resources = null;
          try {
            closing.close();
          } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException("closing the plan's resources failed", e);
          }
        }
      }
    }
  }
}
