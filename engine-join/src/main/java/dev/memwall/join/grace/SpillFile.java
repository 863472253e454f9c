package dev.memwall.join.grace;

import dev.memwall.core.spill.SpillException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * One spill file of a {@link SpillDirectory}: appended to page by page, read back in any slices.
 * Owned and removed by its directory. Failures are {@link dev.memwall.join.common.JoinSpillException}s.
 * Thread safety: one thread.
 */
public final class SpillFile {
  private final dev.memwall.core.spill.SpillFile file;

  SpillFile(dev.memwall.core.spill.SpillFile file) {
    this.file = file;
  }

  /** Appends the bytes of {@code page}. */
  public void append(MemorySegment page) {
    try {
      file.append(page);
    } catch (SpillException e) {
      throw SpillDirectory.translate(e);
    }
  }

  /** Fills {@code into} from {@code position}. */
  public void read(long position, MemorySegment into) {
    try {
      file.read(position, into);
    } catch (SpillException e) {
      throw SpillDirectory.translate(e);
    }
  }

  /** Bytes in the file. */
  public long size() {
    return file.size();
  }

  public Path path() {
    return file.path();
  }

  /** Removes the file now (its directory would on close). */
  public void delete() {
    file.delete();
  }
}
