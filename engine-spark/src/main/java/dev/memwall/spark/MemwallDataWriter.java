package dev.memwall.spark;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.StructType;

/**
 * What one Spark task writes of a memwall data set: its rows, {@value #BATCH_ROWS} to a record batch,
 * filled by Spark's own {@link ArrowWriter} into Arrow vectors of the task's memwall memory
 * ({@link TaskResources}: charged to the task's Spark memory) and written as one Arrow IPC file under a
 * hidden temporary name, which the job's commit renames ({@link MemwallBatchWrite}).
 *
 * <p>A task that fails, is killed, or whose attempt is not the one committed deletes its temporary file
 * ({@link #abort}); {@link #close} frees the task's memory however the task ended. Thread safety: one
 * task thread.
 */
final class MemwallDataWriter implements DataWriter<InternalRow> {
  /** Rows per record batch: memwall's morsel-sized unit of parallelism on reading back. */
  static final int BATCH_ROWS = 65_536;

  /** A task's file: where it was written and the part name the commit gives it. */
  record WrittenPart(String temporary, String target, long rows) implements WriterCommitMessage {}

  /** Creates each task's writer on its executor (serialized from the driver). */
  record Factory(String directory, String prefix, String job, long firstPart, StructType schema, long taskMemoryBytes)
      implements DataWriterFactory, Serializable {
    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
      Path dir = Path.of(directory);
      Path target = dir.resolve(prefix + "-" + (firstPart + partitionId) + ".arrow");
      Path temporary = dir.resolve("." + target.getFileName() + "." + job + ".task-" + taskId + ".tmp");
      return new MemwallDataWriter(temporary, target, schema, taskMemoryBytes);
    }
  }

  private static final Pattern TEMPORARY = Pattern.compile("\\..+\\.arrow\\.([0-9a-f]+)\\.task-\\d+\\.tmp");

  /** The job a temporary file name belongs to, or null when {@code name} is not a temporary file's. */
  static String temporaryJob(String name) {
    Matcher matcher = TEMPORARY.matcher(name);
    return matcher.matches() ? matcher.group(1) : null;
  }

  private final Path temporary;
  private final Path target;
  private final TaskResources resources;
  private final VectorSchemaRoot root;
  private final ArrowWriter rows;
  private final FileChannel channel;
  private final ArrowFileWriter file;
  private int batchRows;
  private long written;

  private MemwallDataWriter(Path temporary, Path target, StructType schema, long taskMemoryBytes) {
    this.temporary = temporary;
    this.target = target;
    this.resources = TaskResources.open("memwall write of " + target.getFileName(), taskMemoryBytes);
    try {
      Schema arrow = new Schema(Arrays.stream(schema.fields()).map(SparkTypes::arrowField).toList());
      this.root = resources.own(VectorSchemaRoot.create(arrow, resources.memory().arrow()));
      this.rows = ArrowWriter.create(root);
      this.channel = resources.own(FileChannel.open(temporary, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE));
      this.file = resources.own(new ArrowFileWriter(root, null, channel));
      file.start();
    } catch (IOException | RuntimeException e) {
      resources.close();
      deleteTemporary();
      throw e instanceof IOException io ? new UncheckedIOException("memwall cannot write " + temporary + ": " + io, io)
          : (RuntimeException) e;
    }
  }

  @Override
  public void write(InternalRow row) throws IOException {
    rows.write(row);
    if (++batchRows == BATCH_ROWS) {
      flush();
    }
  }

  private void flush() throws IOException {
    resources.checkKilled();
    rows.finish();
    file.writeBatch();
    rows.reset();
    written += batchRows;
    batchRows = 0;
  }

  @Override
  public WriterCommitMessage commit() throws IOException {
    if (batchRows > 0) {
      flush();
    }
    file.end();
    channel.force(true);
    return new WrittenPart(temporary.toString(), target.toString(), written);
  }

  @Override
  public void abort() {
    deleteTemporary();
  }

  private void deleteTemporary() {
    try {
      Files.deleteIfExists(temporary);
    } catch (IOException e) {
      // the name is hidden from reads; Spark reports the task's own failure
    }
  }

  @Override
  public void close() {
    resources.close();
  }
}
