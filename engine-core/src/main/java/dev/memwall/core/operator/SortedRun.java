package dev.memwall.core.operator;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.spill.SpillException;
import dev.memwall.core.spill.SpillFile;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/**
 * One sorted run of an {@link ExternalSort} on disk: its rows in order, as an Arrow IPC stream (the
 * standard format, uncompressed) of batches of plain columns (strings decoded) in a
 * {@link SpillFile}. Written a batch at a time through a {@link Writer} and read back a batch at a
 * time through a {@link Reader}, so a run costs one batch of memory at either end however long it is.
 *
 * <p>Ownership: the run owns its file and deletes it on {@link #close}. Thread safety: a writer or a
 * reader is for one thread.
 */
final class SortedRun implements AutoCloseable {
  private final SpillFile file;
  private final long rows;

  private SortedRun(SpillFile file, long rows) {
    this.file = file;
    this.rows = rows;
  }

  long rows() {
    return rows;
  }

  /** Bytes of the run's file. */
  long bytes() {
    return file.size();
  }

  /** A reader over the run's rows, whose batches are allocated from {@code allocator}. */
  Reader open(BufferAllocator allocator) {
    return new Reader(new ArrowStreamReader(file.reader(0), allocator));
  }

  @Override
  public void close() {
    file.delete();
  }

  /** Appends rows to a new run, a batch at a time. */
  static final class Writer implements AutoCloseable {
    private final SpillFile file;
    private final TableBuilder builder;
    private final VectorSchemaRoot staging;
    private final ArrowStreamWriter writer;
    private final int batchRows;
    private int pending;
    private long rows;
    private boolean finished;

    /**
     * @param names the columns' names
     * @param types the columns' types (strings are written decoded)
     * @param allocator where the batch being gathered is allocated
     * @param batchRows rows per batch written (a power of two, at least 64)
     */
    Writer(SpillFile file, List<String> names, List<ColumnType> types, BufferAllocator allocator, int batchRows) {
      this.file = file;
      this.batchRows = batchRows;
      this.builder = new TableBuilder(names, types, null, allocator).batchRows(batchRows);
      VectorSchemaRoot root = null;
      try {
        root = VectorSchemaRoot.create(builder.schema(), allocator);
        this.writer = new ArrowStreamWriter(root, null, file.appender());
        writer.start();
      } catch (IOException | RuntimeException e) {
        if (root != null) {
          root.close();
        }
        builder.close();
        throw failure(e);
      }
      this.staging = root;
    }

    /** Appends row {@code row} of {@code batch} (whose columns match the run's). */
    void append(Batch batch, int row) {
      for (Column column : batch.columns()) {
        builder.appendFrom(column, row);
      }
      builder.endRow();
      rows++;
      if (++pending == batchRows) {
        flush();
      }
    }

    /** Writes the rows gathered so far as a batch. */
    private void flush() {
      ExecutionControl.checkpoint();
      for (VectorSchemaRoot root : builder.drainBatches()) {
        try (root; ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
          new VectorLoader(staging).load(batch);
          writer.writeBatch();
        } catch (IOException e) {
          throw failure(e);
        }
      }
      pending = 0;
    }

    /** Writes what is left and the stream's end; the run is the caller's. */
    SortedRun finish() {
      flush();
      try {
        writer.end();
      } catch (IOException e) {
        throw failure(e);
      }
      finished = true;
      return new SortedRun(file, rows);
    }

    /** Frees the batches; an unfinished run's file is deleted. */
    @Override
    public void close() {
      try {
        builder.close();
      } finally {
        staging.close();
        if (!finished) {
          file.delete();
        }
      }
    }

    private SpillException failure(Exception e) {
      return SpillException.of(e, ExternalSort.OPERATOR, "writing sorted run " + file);
    }
  }

  /** The rows of a run, a batch at a time. */
  static final class Reader implements AutoCloseable {
    private final ArrowStreamReader reader;
    private Batch batch;
    private int row;

    private Reader(ArrowStreamReader reader) {
      this.reader = reader;
    }

    /** Moves to the next row; false at the end of the run. */
    boolean advance() {
      if (batch != null && ++row < batch.rowCount()) {
        return true;
      }
      try {
        while (reader.loadNextBatch()) {
          ExecutionControl.checkpoint();
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          if (root.getRowCount() > 0) {
            batch = new Batch(root, null); // the vectors' buffers changed: fresh column views
            row = 0;
            return true;
          }
        }
      } catch (IOException e) {
        throw new SpillException(SpillException.Reason.IO, ExternalSort.OPERATOR, "reading a sorted run failed: " + e, e);
      }
      batch = null;
      return false;
    }

    /** The current row's batch. */
    Batch batch() {
      return batch;
    }

    /** The current row in {@link #batch()}. */
    int row() {
      return row;
    }

    @Override
    public void close() {
      try {
        reader.close();
      } catch (IOException e) {
        throw new SpillException(SpillException.Reason.IO, ExternalSort.OPERATOR, "closing a sorted run failed: " + e, e);
      }
    }
  }
}
