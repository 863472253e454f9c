package dev.memwall.core.arrow;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A memwall {@link Table} as a standard Arrow stream: an {@link ArrowReader} whose
 * {@linkplain #readSchema schema} is {@link StandardArrow#schema} of the table's, known before the
 * first batch, and whose {@link #loadNextBatch} copies the table's next non-empty batch into
 * {@link #getVectorSchemaRoot()} with {@link StandardBatchCopier} (decimals as Decimal128, strings
 * decoded to plain Utf8). Batches keep the table's order and row counts; batches of zero rows are
 * skipped, so an empty table (no batches, or only empty ones) is a stream of its schema and no
 * batch. Hand it to {@code ArrowStreamWriter}/{@code ArrowFileWriter} (with its
 * {@link #getVectorSchemaRoot()} and no dictionary provider: the standard schema has no
 * dictionaries) or to {@code org.apache.arrow.c.Data.exportArrayStream(allocator, reader, stream)}.
 *
 * <p>Ownership: every buffer the reader produces comes from the allocator given at construction
 * and belongs to the reader's root, which {@link #close} frees (the next batch replaces the last:
 * a consumer that keeps a batch copies or transfers it, or, as Arrow's C stream export does,
 * retains its buffers). {@link #of} takes ownership of the table: the reader closes it when it
 * closes (and closes it too if {@code of} itself fails); {@link #borrowing} leaves it the caller's,
 * who keeps it open until the reader is closed. As with every {@link ArrowReader},
 * {@code close(false)} frees the reader's buffers but leaves the source, the table, open, even for
 * {@link #of}. The allocator must outlive the reader; closing the reader returns all it allocated.
 *
 * <p>Thread safety: none; one consumer reads it (Arrow's readers are the same). The table may be
 * read by others concurrently, since the reader only reads it.
 *
 * <p>Bad input: {@link NullPointerException} for a null table or allocator; a table with a column
 * of an Arrow type memwall does not read fails at construction with {@link IllegalArgumentException};
 * bad data (a non-nullable column with nulls, a dictionary code out of range) fails the
 * {@link #loadNextBatch} that meets it with {@link IllegalArgumentException}, after which the
 * reader may only be closed; reading after {@link #close} throws {@link IllegalStateException}, as
 * does reading a table closed under a borrowing reader (freed buffers, see
 * {@link dev.memwall.core.vector.Column}).
 */
public final class TableReader extends ArrowReader {
  /**
   * Tables a reader hands out one after another, each now the reader's to close: the rounds of a
   * result produced as the host reads it ({@code Plan.stream}).
   */
  public interface Tables extends AutoCloseable {
    /** The next table (possibly without rows), or null once there is none. */
    Table next();

    /** Frees what the source still holds; the reader calls it once, when it closes its source. */
    @Override
    void close();

    /** The one table {@code table}: closing closes it if it was not handed out. */
    static Tables of(Table table) {
      return new Tables() {
        private boolean handedOut;

        @Override
        public Table next() {
          if (handedOut) {
            return null;
          }
          handedOut = true;
          return table;
        }

        @Override
        public void close() {
          if (!handedOut) {
            handedOut = true;
            table.close();
          }
        }
      };
    }
  }

  private final Tables tables;
  private final boolean ownsTables;
  private final Schema schema;
  private final String description;
  private Table current;
  private int next;
  private long bytes;
  private boolean closed;
  private boolean sourceClosed;

  private TableReader(Schema memwallSchema, Tables tables, boolean ownsTables, BufferAllocator allocator,
      String description) {
    super(Objects.requireNonNull(allocator, "allocator"));
    this.tables = Objects.requireNonNull(tables, "tables");
    this.ownsTables = ownsTables;
    this.schema = StandardArrow.schema(memwallSchema);
    this.description = description;
  }

  /**
   * A reader that owns {@code table}: closing the reader closes the table. If this throws, the
   * table has been closed already.
   *
   * @param allocator where every batch the reader produces is allocated (the caller's)
   * @throws IllegalArgumentException if a column's Arrow type is one memwall does not read
   */
  public static TableReader of(Table table, BufferAllocator allocator) {
    Objects.requireNonNull(table, "table");
    try {
      return new TableReader(table.schema(), Tables.of(table), true, allocator, shape(table));
    } catch (RuntimeException | Error e) {
      try {
        table.close();
      } catch (RuntimeException | Error suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * A reader over {@code table} that leaves it the caller's: the caller closes it, after the reader.
   *
   * @param allocator where every batch the reader produces is allocated (the caller's)
   * @throws IllegalArgumentException if a column's Arrow type is one memwall does not read
   */
  public static TableReader borrowing(Table table, BufferAllocator allocator) {
    Objects.requireNonNull(table, "table");
    return new TableReader(table.schema(), Tables.of(table), false, allocator, shape(table));
  }

  /**
   * A reader over the tables {@code tables} hands out, all of schema {@code memwallSchema}, each closed
   * once its batches have been read; closing the reader closes {@code tables} (also when this throws).
   *
   * @throws IllegalArgumentException if a column's Arrow type is one memwall does not read
   */
  public static TableReader of(Schema memwallSchema, Tables tables, BufferAllocator allocator) {
    try {
      return new TableReader(memwallSchema, tables, true, allocator, "rounds");
    } catch (RuntimeException | Error e) {
      tables.close();
      throw e;
    }
  }



  private static String shape(Table table) {
    return table.batches().size() + " batches, " + table.rowCount() + " rows";
  }

  /** The standard schema of the table: the reader's root and every batch have it. */
  @Override
  public Schema readSchema() {
    return schema;
  }

  /**
   * Copies the next non-empty batch into {@link #getVectorSchemaRoot()}.
   *
   * @return false (and an empty root) once every batch has been read
   * @throws IllegalStateException if the reader is closed
   * @throws IllegalArgumentException on bad data, as {@link StandardBatchCopier#copy(Batch, VectorSchemaRoot)}
   */
  @Override
  public boolean loadNextBatch() throws IOException {
    if (closed) {
      throw new IllegalStateException("reader is closed");
    }
    prepareLoadNextBatch();
    while (true) {
      if (current != null) {
        while (next < current.batches().size()) {
          Batch batch = current.batches().get(next++);
          if (batch.rowCount() > 0) {
            bytes += StandardBatchCopier.copy(batch, getVectorSchemaRoot());
            return true;
          }
        }
        finishCurrent();
      }
      Table table = tables.next();
      if (table == null) {
        return false;
      }
      current = table;
      next = 0;
    }
  }

  private void finishCurrent() {
    Table done = current;
    current = null;
    if (ownsTables) {
      done.close();
    }
  }

  /**
   * The root every batch is loaded into, of the {@linkplain #readSchema standard schema}; created
   * in the reader's allocator on first use, freed by {@link #close}.
   *
   * @throws IllegalStateException if the reader is closed
   */
  @Override
  public VectorSchemaRoot getVectorSchemaRoot() throws IOException {
    if (closed) {
      throw new IllegalStateException("reader is closed");
    }
    return super.getVectorSchemaRoot();
  }

  /** The bytes of standard Arrow buffers written so far, over all batches loaded. */
  @Override
  public long bytesRead() {
    return bytes;
  }

  /** Whether closing the reader closes the tables ({@link #of}) or not ({@link #borrowing}). */
  public boolean ownsTable() {
    return ownsTables;
  }

  /** Frees the reader's batch and, with {@code closeReadSource} and owned tables, the tables. Idempotent. */
  @Override
  public void close(boolean closeReadSource) throws IOException {
    closed = true;
    super.close(closeReadSource);
  }

  @Override
  protected void closeReadSource() {
    if (sourceClosed || !ownsTables) {
      return;
    }
    sourceClosed = true;
    try {
      if (current != null) {
        finishCurrent();
      }
    } finally {
      tables.close();
    }
  }

  /** For messages: the table's shape and how far the reader got. */
  @Override
  public String toString() {
    return "TableReader[" + description + ", next " + next + (ownsTables ? ", owns the table" : ", borrows the table")
        + (closed ? ", closed" : "") + "]";
  }
}
