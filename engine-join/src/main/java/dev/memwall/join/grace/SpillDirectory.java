package dev.memwall.join.grace;

import dev.memwall.core.spill.SpillException;
import dev.memwall.join.common.JoinSpillException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A private temporary directory holding one join's spill files; {@link #close} removes every file
 * and the directory, whether the join succeeded, failed or was interrupted.
 *
 * <p>The join's view of engine-core's {@link dev.memwall.core.spill.SpillDirectory}, which the
 * spilling aggregation and sort share: the same files, quota and sweeping, with its failures
 * reported as the join's own {@link JoinSpillException} (same reason, same message): a full disk or
 * quota as {@link JoinSpillException.Reason#DISK_FULL}, an interrupt as
 * {@link JoinSpillException.Reason#INTERRUPTED} (the thread's interrupt status restored), anything
 * else as {@link JoinSpillException.Reason#IO}.
 *
 * <p>Thread safety: one thread.
 */
public final class SpillDirectory implements AutoCloseable {
  /** The operator named in the spill files' failures. */
  static final String OPERATOR = "join";

  private final dev.memwall.core.spill.SpillDirectory directory;

  private SpillDirectory(dev.memwall.core.spill.SpillDirectory directory) {
    this.directory = directory;
  }

  /**
   * Creates a fresh directory under {@code root}.
   *
   * @param quotaBytes the most bytes the spill files may hold at once ({@link Long#MAX_VALUE}: only the disk bounds them)
   */
  public static SpillDirectory create(Path root, long quotaBytes) {
    try {
      return new SpillDirectory(dev.memwall.core.spill.SpillDirectory.create(root, quotaBytes, OPERATOR));
    } catch (SpillException e) {
      throw translate(e);
    }
  }

  public Path path() {
    return directory.path();
  }

  /** Bytes written to spill files so far (all files, deleted ones included). */
  public long writtenBytes() {
    return directory.writtenBytes();
  }

  /** The most bytes the spill files held at once. */
  public long peakBytes() {
    return directory.peakBytes();
  }

  /** Spill files that exist now. */
  public int liveFiles() {
    return directory.liveFiles();
  }

  /** A new, empty spill file. */
  public SpillFile newFile(String prefix) {
    try {
      return new SpillFile(directory.newFile(prefix));
    } catch (SpillException e) {
      throw translate(e);
    }
  }

  /** The join's exception for a failure of the shared spill files. */
  static JoinSpillException translate(SpillException e) {
    JoinSpillException.Reason reason = switch (e.reason()) {
      case DISK_FULL -> JoinSpillException.Reason.DISK_FULL;
      case INTERRUPTED -> JoinSpillException.Reason.INTERRUPTED;
      case IO -> JoinSpillException.Reason.IO;
    };
    return new JoinSpillException(reason, e.getMessage(), e);
  }

  /** Whether {@code e} says the device is full (ENOSPC, or EDQUOT). */
  static boolean isDiskFull(IOException e) {
    return dev.memwall.core.spill.SpillDirectory.isDiskFull(e);
  }

  /** Removes every spill file and the directory; idempotent. */
  @Override
  public void close() {
    directory.close();
  }
}
