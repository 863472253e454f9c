package dev.memwall.core.spill;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

/**
 * One spill file of a {@link SpillDirectory}: appended to block by block, read back in any slices,
 * or written and read as a byte stream (for Arrow IPC). Owned and removed by its directory.
 *
 * <p>Thread safety: one writer at a time; once written, readers may share it (reads are positional).
 */
public final class SpillFile {
  private final SpillDirectory owner;
  final Path path;
  final FileChannel channel;
  volatile long size;

  SpillFile(SpillDirectory owner, Path path, FileChannel channel) {
    this.owner = owner;
    this.path = path;
    this.channel = channel;
  }

  /** Appends the bytes of {@code block}. */
  public void append(MemorySegment block) {
    owner.append(this, block);
  }

  /** Appends the remaining bytes of {@code block}. */
  public void append(ByteBuffer block) {
    owner.append(this, block);
  }

  /** Fills {@code into} from {@code position}; the file must hold those bytes. */
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

  /** A channel appending to this file (closing it closes nothing): for writers such as Arrow's. */
  public WritableByteChannel appender() {
    return new Appender();
  }

  /** A channel reading this file from {@code position} to its end (closing it closes nothing). */
  public ReadableByteChannel reader(long position) {
    return new Reader(position);
  }

  @Override
  public String toString() {
    return path.toString();
  }

  /**
   * A channel onto the file that owns nothing: closing it only marks it closed, the file stays open
   * until its directory removes it.
   */
  private abstract static class View implements Channel {
    private boolean open = true;

    @Override
    public final boolean isOpen() {
      return open;
    }

    @Override
    public final void close() {
      open = false;
    }
  }

  private final class Appender extends View implements WritableByteChannel {
    @Override
    public int write(ByteBuffer source) {
      int n = source.remaining();
      owner.append(SpillFile.this, source);
      return n;
    }
  }

  private final class Reader extends View implements ReadableByteChannel {
    private long at;

    Reader(long position) {
      this.at = position;
    }

    @Override
    public int read(ByteBuffer target) {
      int n = owner.readSome(SpillFile.this, at, target);
      if (n > 0) {
        at += n;
      }
      return n;
    }
  }
}
