package dev.memwall.join.grace;

import dev.memwall.join.JoinSpillException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A private temporary directory holding one join's spill files; {@link #close} removes every file
 * and the directory, whether the join succeeded, failed or was interrupted.
 *
 * <p>Every write and read goes through here, so that I/O failures become a {@link JoinSpillException}
 * naming the directory: a full disk (or the optional byte quota, which lets tests and cautious
 * callers bound the disk a join may use) as {@link JoinSpillException.Reason#DISK_FULL}, an interrupt
 * as {@link JoinSpillException.Reason#INTERRUPTED} (the thread's interrupt status is restored).
 *
 * <p>Thread safety: one thread.
 */
public final class SpillDirectory implements AutoCloseable {
  private final Path directory;
  private final long quotaBytes;
  private final List<SpillFile> files = new ArrayList<>();
  private long writtenBytes;
  private long liveBytes;
  private long peakBytes;
  private int created;
  private boolean closed;

  private SpillDirectory(Path directory, long quotaBytes) {
    this.directory = directory;
    this.quotaBytes = quotaBytes;
  }

  /**
   * Creates a fresh directory under {@code root}.
   *
   * @param quotaBytes the most bytes the spill files may hold at once ({@link Long#MAX_VALUE}: only the disk bounds them)
   */
  public static SpillDirectory create(Path root, long quotaBytes) {
    if (quotaBytes < 0) {
      throw new IllegalArgumentException("spill quota must not be negative, got " + quotaBytes);
    }
    try {
      Files.createDirectories(root);
      return new SpillDirectory(Files.createTempDirectory(root, "memwall-spill-"), quotaBytes);
    } catch (IOException e) {
      throw new JoinSpillException(JoinSpillException.Reason.IO, "cannot create a spill directory under " + root
          + ": " + e.getMessage(), e);
    }
  }

  public Path path() {
    return directory;
  }

  /** Bytes written to spill files so far (all files, deleted ones included). */
  public long writtenBytes() {
    return writtenBytes;
  }

  /** The most bytes the spill files held at once. */
  public long peakBytes() {
    return peakBytes;
  }

  /** Spill files that exist now. */
  public int liveFiles() {
    return files.size();
  }

  /** A new, empty spill file. */
  public SpillFile newFile(String prefix) {
    checkInterrupt();
    Path path = directory.resolve(prefix + "-" + (created++) + ".spill");
    try {
      FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      SpillFile file = new SpillFile(this, path, channel);
      files.add(file);
      return file;
    } catch (IOException e) {
      throw failure(e, 0);
    }
  }

  void append(SpillFile file, MemorySegment bytes) {
    checkInterrupt();
    long size = bytes.byteSize();
    if (liveBytes + size > quotaBytes) {
      throw new JoinSpillException(JoinSpillException.Reason.DISK_FULL, String.format(Locale.ROOT,
          "spill quota of %d bytes in %s is used up: %d bytes held, %d more needed; give the join more memory"
              + " or a larger spill quota", quotaBytes, directory, liveBytes, size), null);
    }
    ByteBuffer buffer = bytes.asByteBuffer();
    try {
      long position = file.size;
      while (buffer.hasRemaining()) {
        position += file.channel.write(buffer, position);
      }
    } catch (IOException e) {
      throw failure(e, size);
    }
    file.size += size;
    writtenBytes += size;
    liveBytes += size;
    peakBytes = Math.max(peakBytes, liveBytes);
  }

  /** Reads {@code into.byteSize()} bytes at {@code position} of {@code file}. */
  void read(SpillFile file, long position, MemorySegment into) {
    checkInterrupt();
    ByteBuffer buffer = into.asByteBuffer();
    try {
      while (buffer.hasRemaining()) {
        int n = file.channel.read(buffer, position + buffer.position());
        if (n < 0) {
          throw new JoinSpillException(JoinSpillException.Reason.IO, "spill file " + file.path + " ended at "
              + (position + buffer.position()) + " of " + file.size + " bytes: corrupted by someone else?", null);
        }
      }
    } catch (IOException e) {
      throw failure(e, 0);
    }
  }

  void delete(SpillFile file) {
    if (files.remove(file)) {
      liveBytes -= file.size;
      closeQuietly(file);
    }
  }

  private static void closeQuietly(SpillFile file) {
    try {
      file.channel.close();
    } catch (IOException ignored) {
      // best effort: the file is deleted next
    }
    try {
      Files.deleteIfExists(file.path);
    } catch (IOException ignored) {
      // best effort; the directory removal below reports nothing either
    }
  }

  private void checkInterrupt() {
    if (Thread.currentThread().isInterrupted()) {
      throw new JoinSpillException(JoinSpillException.Reason.INTERRUPTED, "join interrupted while spilling to "
          + directory, null);
    }
  }

  private JoinSpillException failure(IOException e, long bytes) {
    if (e instanceof ClosedByInterruptException) {
      Thread.currentThread().interrupt();
      return new JoinSpillException(JoinSpillException.Reason.INTERRUPTED, "join interrupted while spilling to "
          + directory, e);
    }
    if (isDiskFull(e)) {
      return new JoinSpillException(JoinSpillException.Reason.DISK_FULL, String.format(Locale.ROOT,
          "disk of spill directory %s is full: no room for %d more bytes after %d written by this join;"
              + " give the join more memory or a spill directory with more room", directory, bytes, writtenBytes), e);
    }
    return new JoinSpillException(JoinSpillException.Reason.IO, "spill I/O failed in " + directory + ": "
        + e.getMessage(), e);
  }

  /** Whether {@code e} says the device is full (ENOSPC, or EDQUOT). */
  static boolean isDiskFull(IOException e) {
    String message = String.valueOf(e.getMessage());
    return message.contains("No space left on device") || message.contains("Disk quota exceeded");
  }

  /** Removes every spill file and the directory; idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (SpillFile file : files) {
      closeQuietly(file);
    }
    files.clear();
    liveBytes = 0;
    try {
      Files.deleteIfExists(directory);
    } catch (IOException ignored) {
      // only fails when a foreign file was put there; ours are gone
    }
  }
}
