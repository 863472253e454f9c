package dev.memwall.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;

/**
 * One batch job writing a memwall data set, on the driver: the tasks ({@link MemwallDataWriter}) write
 * hidden temporary files; {@link #commit} then removes the files an overwrite replaces and renames the
 * temporary files to their part names, and {@link #abort} deletes them. A reader never sees a
 * half-written file (temporary names start with {@code .}, which reads skip). Temporary files a job leaves
 * behind because its driver died are deleted by the next write to the directory.
 *
 * <p>Part numbers start after the highest part of the prefix already in the directory (at 1 for an
 * overwrite), task by task in partition order. Two jobs writing the same data set at once are not
 * coordinated: run one writer at a time. Thread safety: Spark calls it from the driver's job thread.
 */
final class MemwallBatchWrite implements BatchWrite {
  private final Path directory;
  private final String table;
  private final String prefix;
  private final StructType schema;
  private final boolean truncate;
  private final long firstPart;
  private final long taskMemoryBytes;
  private final String job = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);

  private MemwallBatchWrite(Path directory, String table, String prefix, StructType schema, boolean truncate,
      long firstPart, long taskMemoryBytes) {
    this.directory = directory;
    this.table = table;
    this.prefix = prefix;
    this.schema = schema;
    this.truncate = truncate;
    this.firstPart = firstPart;
    this.taskMemoryBytes = taskMemoryBytes;
  }

  /**
   * Creates the directory, deletes temporary files earlier jobs left (a job whose driver died), and
   * numbers the parts after those there.
   *
   * @throws UncheckedIOException naming the directory when it cannot be created or listed
   */
  static MemwallBatchWrite start(Path directory, String table, String prefix, StructType schema, boolean truncate,
      long taskMemoryBytes) {
    try {
      Files.createDirectories(directory);
      deleteTemporaries(directory, null);
    } catch (IOException e) {
      throw new UncheckedIOException("memwall cannot prepare the directory " + directory + ": " + e, e);
    }
    long first = truncate ? 1 : DataSetFiles.Listing.of(directory).lastPart(prefix) + 1;
    return new MemwallBatchWrite(directory, table, prefix, schema, truncate, first, taskMemoryBytes);
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return new MemwallDataWriter.Factory(directory.toString(), prefix, job, firstPart, schema, taskMemoryBytes);
  }

  @Override
  public boolean useCommitCoordinator() {
    return true; // one attempt per partition commits, so each part is written once
  }

  /** Replaces the old files (an overwrite) and gives the new ones their part names. */
  @Override
  public void commit(WriterCommitMessage[] messages) {
    try {
      if (truncate) {
        for (Path old : DataSetFiles.Listing.of(directory).files(table)) {
          Files.deleteIfExists(old);
        }
      }
      for (WriterCommitMessage message : messages) {
        MemwallDataWriter.WrittenPart part = (MemwallDataWriter.WrittenPart) message;
        Files.move(Path.of(part.temporary()), Path.of(part.target()), StandardCopyOption.ATOMIC_MOVE);
      }
    } catch (IOException e) {
      abort(messages);
      throw new UncheckedIOException("memwall could not commit the write to " + directory + ": " + e, e);
    }
  }

  /**
   * Deletes this job's temporary files, committed by their tasks or not; the data set stays as it was.
   * A task Spark is still killing deletes its own file when it ends ({@link MemwallDataWriter#abort}), which
   * may be after this: Spark does not wait for killed tasks.
   */
  @Override
  public void abort(WriterCommitMessage[] messages) {
    try {
      deleteTemporaries(directory, job);
    } catch (IOException e) {
      // best effort, as Spark's own file commit protocol: temporary names are hidden from reads
    }
  }

  /** Deletes the temporary files of {@code job} in {@code directory}, or of every job when it is null. */
  private static void deleteTemporaries(Path directory, String job) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.toList()) {
        String owner = MemwallDataWriter.temporaryJob(file.getFileName().toString());
        if (owner != null && (job == null || job.equals(owner))) {
          Files.deleteIfExists(file);
        }
      }
    }
  }

  @Override
  public String toString() {
    return "MemwallBatchWrite[" + directory + ", " + prefix + "-" + firstPart + "..., " + List.of(schema.fieldNames())
        + (truncate ? ", overwrite" : ", append") + "]";
  }
}
