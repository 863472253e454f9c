package dev.memwall.core.spill;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A private temporary directory holding one operator's spill files; {@link #close} removes every
 * file and the directory, whether the operator succeeded, failed or was cancelled.
 *
 * <p>Where: {@code <root>/memwall-spills-<pid>-<nonce>/memwall-spill-<random>/}, inside this process's
 * own directory under the root ({@link SpillOwner}), on whose lock file the process holds an OS file
 * lock while it spills there. A process killed in the middle of spilling (a {@code kill -9}, an
 * out-of-memory kill, a power cut) leaves its files behind; the next process that spills under the
 * same root finds the lock free and sweeps them before it spills. A live process's files are never
 * swept.
 *
 * <p>Every write and read goes through here, so that I/O failures become a {@link SpillException}
 * naming the operator and the directory or file: a full disk (the file and the system's reason, "No
 * space left on device"), or the quota, which lets tests and cautious callers bound the disk an
 * operator may use, as {@link SpillException.Reason#DISK_FULL}, an
 * interrupt as {@link SpillException.Reason#INTERRUPTED} (the thread's interrupt status is
 * restored), anything else (a read-only spill root, for one) as {@link SpillException.Reason#IO}.
 * Files are written and read with positional {@link FileChannel} calls, never mapped.
 *
 * <p>Thread safety: the directory may be shared by the workers of one operator (creating, deleting
 * and accounting are synchronized); each {@link SpillFile} is written by one thread at a time, and
 * may be read by several once written. {@link #close} must not race with writes.
 */
public final class SpillDirectory implements AutoCloseable {
  /** Spill directories of the process that exist now (for leak checks in tests). */
  private static final AtomicInteger LIVE_DIRECTORIES = new AtomicInteger();

  private final SpillOwner owner;
  private final Path directory;
  private final long quotaBytes;
  private final String operator;
  private final List<SpillFile> files = new ArrayList<>();
  private long writtenBytes;
  private long liveBytes;
  private long peakBytes;
  private int created;
  private boolean closed;

  private SpillDirectory(SpillOwner owner, Path directory, long quotaBytes, String operator) {
    this.owner = owner;
    this.directory = directory;
    this.quotaBytes = quotaBytes;
    this.operator = operator;
    LIVE_DIRECTORIES.incrementAndGet();
  }

  /**
   * Creates a fresh directory in this process's directory under {@code root} (both created if missing),
   * first sweeping the root of the spill files of processes that died while spilling there.
   *
   * @param quotaBytes the most bytes the spill files may hold at once ({@link Long#MAX_VALUE}: only the disk bounds them)
   * @param operator the operator spilling, named in every failure
   * @throws SpillException (reason IO) if the directory cannot be created, e.g. under a read-only root
   */
  public static SpillDirectory create(Path root, long quotaBytes, String operator) {
    if (quotaBytes < 0) {
      throw new IllegalArgumentException("spill quota must not be negative, got " + quotaBytes);
    }
    SpillOwner owner = null;
    try {
      owner = SpillOwner.acquire(root);
      return new SpillDirectory(owner, Files.createTempDirectory(owner.directory(), "memwall-spill-"), quotaBytes,
          operator);
    } catch (IOException | SecurityException | UnsupportedOperationException e) {
      if (owner != null) {
        owner.release();
      }
      throw new SpillException(e instanceof IOException io && isDiskFull(io) ? SpillException.Reason.DISK_FULL
          : SpillException.Reason.IO, operator, "cannot create a spill directory under " + root + " (" + e
          + "); name a writable spill directory with room or give the query more memory", e);
    }
  }

  /** Spill directories that exist now in this process. */
  public static int liveDirectories() {
    return LIVE_DIRECTORIES.get();
  }

  public Path path() {
    return directory;
  }

  /** The operator this directory spills for. */
  public String operator() {
    return operator;
  }

  /** Bytes written to spill files so far (all files, deleted ones included). */
  public synchronized long writtenBytes() {
    return writtenBytes;
  }

  /** The most bytes the spill files held at once. */
  public synchronized long peakBytes() {
    return peakBytes;
  }

  /** Spill files that exist now. */
  public synchronized int liveFiles() {
    return files.size();
  }

  /** A new, empty spill file. */
  public SpillFile newFile(String prefix) {
    checkInterrupt();
    Path path;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("spill directory " + directory + " is closed");
      }
      path = directory.resolve(prefix + "-" + (created++) + ".spill");
    }
    try {
      FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      SpillFile file = new SpillFile(this, path, channel);
      synchronized (this) {
        files.add(file);
      }
      return file;
    } catch (IOException e) {
      throw failure(e, path, 0);
    }
  }

  /** Appends the remaining bytes of {@code bytes} to {@code file}. */
  void append(SpillFile file, ByteBuffer bytes) {
    checkInterrupt();
    long size = bytes.remaining();
    synchronized (this) {
      if (liveBytes + size > quotaBytes) {
        throw new SpillException(SpillException.Reason.DISK_FULL, operator, String.format(Locale.ROOT,
            "spill quota of %d bytes in %s is used up: %d bytes held, %d more needed; give the query more memory"
                + " or a larger spill quota", quotaBytes, directory, liveBytes, size), null);
      }
      liveBytes += size; // claimed before writing, so that concurrent writers stay within the quota
      peakBytes = Math.max(peakBytes, liveBytes);
    }
    try {
      long position = file.size;
      while (bytes.hasRemaining()) {
        position += file.channel.write(bytes, position);
      }
    } catch (IOException e) {
      synchronized (this) {
        liveBytes -= size;
      }
      throw failure(e, file.path, size);
    }
    file.size += size;
    synchronized (this) {
      writtenBytes += size;
    }
  }

  /** Appends the bytes of {@code bytes} to {@code file}. */
  void append(SpillFile file, MemorySegment bytes) {
    append(file, bytes.asByteBuffer());
  }

  /**
   * Reads up to {@code into.remaining()} bytes at {@code position} of {@code file}, fewer only where
   * the file ends; returns how many (-1 at the end).
   */
  int readSome(SpillFile file, long position, ByteBuffer into) {
    checkInterrupt();
    if (position >= file.size) {
      return into.hasRemaining() ? -1 : 0;
    }
    int wanted = (int) Math.min(into.remaining(), file.size - position);
    ByteBuffer window = into.slice(into.position(), wanted);
    try {
      while (window.hasRemaining()) {
        int n = file.channel.read(window, position + window.position());
        if (n < 0) {
          throw new SpillException(SpillException.Reason.IO, operator, "spill file " + file.path + " ended at "
              + (position + window.position()) + " of " + file.size + " bytes: changed by someone else?", null);
        }
      }
    } catch (IOException e) {
      throw failure(e, file.path, 0);
    }
    into.position(into.position() + wanted);
    return wanted;
  }

  /** Fills {@code into} from {@code position} of {@code file}. */
  void read(SpillFile file, long position, MemorySegment into) {
    ByteBuffer buffer = into.asByteBuffer();
    if (position + buffer.remaining() > file.size) {
      throw new IllegalArgumentException("reading " + buffer.remaining() + " bytes at " + position + " of spill file "
          + file.path + " of " + file.size + " bytes");
    }
    while (buffer.hasRemaining()) {
      readSome(file, position + buffer.position(), buffer);
    }
  }

  void delete(SpillFile file) {
    boolean removed;
    synchronized (this) {
      removed = files.remove(file);
      if (removed) {
        liveBytes -= file.size;
      }
    }
    if (removed) {
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
      throw new SpillException(SpillException.Reason.INTERRUPTED, operator, "interrupted while spilling to "
          + directory, null);
    }
  }

  /** {@code e}, which happened on spill file {@code file} while {@code bytes} more were written, as the operator's failure. */
  private SpillException failure(IOException e, Path file, long bytes) {
    if (e instanceof ClosedByInterruptException) {
      Thread.currentThread().interrupt();
      return new SpillException(SpillException.Reason.INTERRUPTED, operator, "interrupted while spilling to "
          + directory, e);
    }
    String reason = e instanceof FileSystemException named && named.getReason() != null ? named.getReason()
        : String.valueOf(e.getMessage());
    if (isDiskFull(e)) {
      return new SpillException(SpillException.Reason.DISK_FULL, operator, String.format(Locale.ROOT,
          "spill file %s: %s; no room for %d more bytes after %d written to its directory;"
              + " give the query more memory or a spill directory with more room", file, reason, bytes, writtenBytes()),
          e);
    }
    return new SpillException(SpillException.Reason.IO, operator, "spill file " + file + ": " + reason, e);
  }

  /** Whether {@code e} says the device is full (ENOSPC, or EDQUOT). */
  public static boolean isDiskFull(IOException e) {
    String message = String.valueOf(e.getMessage());
    return message.contains("No space left on device") || message.contains("Disk quota exceeded");
  }

  /** Removes every spill file and the directory; idempotent. */
  @Override
  public void close() {
    List<SpillFile> open;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      open = new ArrayList<>(files);
      files.clear();
      liveBytes = 0;
    }
    for (SpillFile file : open) {
      closeQuietly(file);
    }
    try {
      SpillSweep.deleteTree(directory); // the directory is private: anything else put there goes too
    } finally {
      owner.release();
      LIVE_DIRECTORIES.decrementAndGet();
    }
  }

  @Override
  public String toString() {
    return "SpillDirectory[" + directory + ", " + operator + "]";
  }
}
