package dev.memwall.core.spill;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Batches of a table held in memory, written to a {@link SpillFile} as they are and read back one at a
 * time: for a host that must give memory back while a result is being read (a task asked to spill by its
 * host's memory manager), the result's unread batches go to disk and the reader goes on from there; for an
 * operator refused the memory to sort what it holds, its rows go to disk first and come back a batch at a
 * time.
 *
 * <p>Writing {@linkplain #write allocates nothing}: the batches' own buffers, and their dictionaries once,
 * are written as an Arrow IPC stream (the standard format, uncompressed), without gathering them into new
 * batches. A spill that a host asks for while it is short of memory must not need more memory to happen.
 * Reading allocates one batch at a time from the allocator given to {@link #next}, which is where the
 * memory comes back.
 *
 * <p>Ownership: this owns its file and deletes it on {@link #close}; the table written stays the
 * caller's, unchanged (to be closed by the caller once written, which is what frees its memory). A batch
 * from {@link #next} is valid until the next call or {@link #close}. Bad input: a failure to write (a full
 * disk, the spill quota) is a {@link SpillException} naming {@code operator}, after which the file is
 * deleted and the table is as it was. Thread safety: one thread.
 */
public final class SpilledBatches implements AutoCloseable {
  private final SpillFile file;
  private final String operator;
  private final long rows;
  private ArrowStreamReader reader;
  private boolean closed;

  private SpilledBatches(SpillFile file, String operator, long rows) {
    this.file = file;
    this.operator = operator;
    this.rows = rows;
  }

  /**
   * Writes the batches of {@code table} from batch {@code from} on to {@code file} (empty batches left out).
   *
   * @param from the first batch written: one of the table's
   * @param operator who spills, named in errors
   * @throws SpillException when the file cannot be written; it is deleted then
   */
  public static SpilledBatches write(SpillFile file, Table table, int from, String operator) {
    if (from < 0 || from >= table.batches().size()) {
      throw new IllegalArgumentException("batch " + from + " is not one of the table's " + table.batches().size());
    }
    List<Batch> batches = table.batches().subList(from, table.batches().size());
    long rows = 0;
    try (BatchWriter writer = new BatchWriter(table.roots().getFirst(), table.provider(), file.appender())) {
      writer.start();
      for (Batch batch : batches) {
        if (batch.rowCount() > 0) {
          writer.write(batch.arrow());
          rows += batch.rowCount();
        }
      }
      writer.end();
    } catch (IOException | RuntimeException e) {
      file.delete();
      throw SpillException.of(e, operator, "writing held batches to " + file);
    }
    return new SpilledBatches(file, operator, rows);
  }

  /** Rows written. */
  public long rows() {
    return rows;
  }

  /** Bytes of the file. */
  public long bytes() {
    return file.size();
  }

  /**
   * The next batch written, read into memory from {@code allocator} (the same allocator each call), as a
   * table of that one batch that owns nothing (closing it frees nothing; the batch is freed by the next
   * call or {@link #close}); null after the last.
   *
   * @throws SpillException when the file cannot be read
   */
  public Table next(BufferAllocator allocator) {
    if (closed) {
      throw new IllegalStateException("the spilled batches of " + operator + " are closed");
    }
    try {
      if (reader == null) {
        reader = new ArrowStreamReader(file.reader(0), allocator);
      }
      if (!reader.loadNextBatch()) {
        return null;
      }
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      return Table.borrow(root.getSchema(), List.of(root), reader); // fresh column views of the new buffers
    } catch (IOException e) {
      throw new SpillException(SpillException.Reason.IO, operator, "reading held batches back from " + file
          + " failed: " + e, e);
    }
  }

  /** Frees the batch read last and deletes the file. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (reader != null) {
        reader.close();
      }
    } catch (IOException e) {
      throw new SpillException(SpillException.Reason.IO, operator, "closing held batches of " + file + " failed: "
          + e, e);
    } finally {
      file.delete();
    }
  }

  /**
   * An IPC stream writer of existing batches: each is unloaded as it is (its buffers retained, not
   * copied) and written, where Arrow's own {@link ArrowStreamWriter} loads batches into one root and
   * copies the dictionaries it writes.
   */
  private static final class BatchWriter extends ArrowWriter {
    private final DictionaryProvider provider;
    private final Set<Long> dictionaries = new LinkedHashSet<>();
    private boolean dictionariesWritten;

    BatchWriter(VectorSchemaRoot first, DictionaryProvider provider, WritableByteChannel out) {
      super(first, provider, out, IpcOption.DEFAULT);
      this.provider = provider;
      for (Field field : first.getSchema().getFields()) {
        if (field.getDictionary() != null) {
          dictionaries.add(field.getDictionary().getId());
        }
      }
    }

    void write(VectorSchemaRoot batch) throws IOException {
      start();
      ensureDictionariesWritten(provider, dictionaries);
      try (ArrowRecordBatch record = new VectorUnloader(batch, true, NoCompressionCodec.INSTANCE, true)
          .getRecordBatch()) {
        writeRecordBatch(record);
      }
    }

    /** Writes each dictionary once, before the first batch (the stream's dictionaries never change). */
    @Override
    protected void ensureDictionariesWritten(DictionaryProvider provider, Set<Long> used) throws IOException {
      if (dictionariesWritten) {
        return;
      }
      dictionariesWritten = true;
      for (long id : used) {
        writeDictionaryBatch(provider.lookup(id));
      }
    }

    @Override
    protected void endInternal(WriteChannel out) throws IOException {
      ArrowStreamWriter.writeEndOfStream(out, option);
    }
  }
}
