package dev.memwall.core.plan;

import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.ReadableSchema;
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

  /**
   * A table's rows.
   *
   * @param inOrder whether the table's row order is the result's (an ORDER BY's output): its rows
   *     then go through one worker, in order ({@link Morsels#inOrder})
   */
  record OfTable(Table table, boolean inOrder) implements ScanSource {
    /** A table whose row order does not matter to what reads it. */
    public OfTable(Table table) {
      this(table, false);
    }

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
      return inOrder ? Morsels.inOrder(table) : Morsels.of(table);
    }
  }

  /**
   * A stream, read by the first execution of the plan; the caller closes it. Its columns of Arrow
   * types memwall does not read are left out of what the plan sees ({@link ReadableSchema}), as a
   * file's and a borrowed table's are: its batches are read through roots of the readable columns,
   * and closed whole.
   *
   * @param consumed whether an execution has started reading it
   * @param readable the stream's readable columns
   */
  record OfStream(BatchStream stream, AtomicBoolean consumed, ReadableSchema readable) implements ScanSource {
    OfStream(BatchStream stream, AtomicBoolean consumed) {
      this(stream, consumed, ReadableSchema.of(stream.schema(), stream.dictionaries(),
          "in a streamed scan's batches; Plan.scan left the column out"));
    }

    @Override
    public Schema schema() {
      return readable.schema();
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
      return Morsels.of(stream, readable);
    }

    @Override
    public Table table() {
      return null;
    }
  }
}
