package dev.memwall.core.plan;

import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.Table;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.vector.types.pojo.Schema;

/** What a plan's first pipeline reads: a table (any number of times) or a stream (once). */
sealed interface ScanSource {
  Schema schema();

  /** An upper bound of the rows, or {@link Long#MAX_VALUE} when unknown before reading. */
  long maxRows();

  /** The rows, for one pipeline to claim. */
  Morsels morsels();

  /** The table, or null for a stream (whose rows can only be claimed). */
  Table table();

  record OfTable(Table table) implements ScanSource {
    @Override
    public Schema schema() {
      return table.schema();
    }

    @Override
    public long maxRows() {
      return table.rowCount();
    }

    @Override
    public Morsels morsels() {
      return Morsels.of(table);
    }
  }

  /**
   * A stream, read by the first execution of the plan; the caller closes it.
   *
   * @param consumed whether an execution has started reading it
   */
  record OfStream(BatchStream stream, AtomicBoolean consumed) implements ScanSource {
    @Override
    public Schema schema() {
      return stream.schema();
    }

    @Override
    public long maxRows() {
      return Long.MAX_VALUE;
    }

    /**
     * @throws IllegalStateException when the stream was read before: a stream is read once
     */
    @Override
    public Morsels morsels() {
      if (!consumed.compareAndSet(false, true)) {
        throw new IllegalStateException("the plan's input stream has been read already: a stream can be scanned once");
      }
      return Morsels.of(stream);
    }

    @Override
    public Table table() {
      return null;
    }
  }
}
