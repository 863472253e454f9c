package dev.memwall.join.grace;

import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * One spill file of a {@link SpillDirectory}: appended to page by page, read back in any slices.
 * Owned and removed by its directory. Thread safety: one thread.
 */
public final class SpillFile {
  private final SpillDirectory owner;
  final Path path;
  final FileChannel channel;
  long size;

  SpillFile(SpillDirectory owner, Path path, FileChannel channel) {
    this.owner = owner;
    this.path = path;
    this.channel = channel;
  }

  /** Appends the bytes of {@code page}. */
  public void append(MemorySegment page) {
    owner.append(this, page);
  }

  /** Fills {@code into} from {@code position}. */
  public void read(long position, MemorySegment into) {
    owner.read(this, position, into);
  }

  /** Bytes in the file. */
  public long size() {
    return size;
  }

  public Path path() {
    return path;
  }

  /** Removes the file now (its directory would on close). */
  public void delete() {
    owner.delete(this);
  }
}
