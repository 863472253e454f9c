package dev.memwall.core.spill;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where and how much an operator may spill: the root under which it creates its private
 * {@link SpillDirectory} (only when it first needs one), and the most bytes its spill files may hold
 * at once. {@link #OFF} (no root): the operator does not spill, and a refused allocation fails with a
 * {@link dev.memwall.core.memory.BudgetExceededException} that names the operator and its stage.
 *
 * @param root the directory spill directories are created under; null: spilling is off
 * @param quotaBytes the most bytes one operator's spill files may hold at once
 *     ({@link Long#MAX_VALUE}: only the disk bounds them)
 */
public record SpillSettings(Path root, long quotaBytes) {
  /** Spilling off. */
  public static final SpillSettings OFF = new SpillSettings(null, Long.MAX_VALUE);

  public SpillSettings {
    if (quotaBytes < 0) {
      throw new IllegalArgumentException("spill quota must not be negative, got " + quotaBytes);
    }
  }

  /** The share of the temporary directory's free space that {@link #temporaryDirectory} lets one operator fill. */
  public static final int TEMPORARY_SHARE_PERCENT = 50;

  /**
   * Spilling into fresh directories under {@code java.io.tmpdir}, the default of a caller that names
   * no spill directory. Never without a limit there: the system's temporary directory is shared with
   * everything else on the machine, so the quota is {@value #TEMPORARY_SHARE_PERCENT}% of its free
   * space now (1 GiB where the free space cannot be read); a caller that names a spill directory
   * chooses its own quota.
   */
  public static SpillSettings temporaryDirectory() {
    Path root = Path.of(System.getProperty("java.io.tmpdir"));
    return new SpillSettings(root, temporaryQuota(root));
  }

  private static long temporaryQuota(Path root) {
    try {
      return Files.getFileStore(root).getUsableSpace() / 100 * TEMPORARY_SHARE_PERCENT;
    } catch (IOException | SecurityException e) {
      return 1L << 30;
    }
  }

  /** Whether operators may spill. */
  public boolean enabled() {
    return root != null;
  }

  /** A fresh directory for {@code operator} under {@link #root}. */
  public SpillDirectory newDirectory(String operator) {
    if (root == null) {
      throw new IllegalStateException("spilling is off");
    }
    return SpillDirectory.create(root, quotaBytes, operator);
  }
}
