package dev.memwall.index.page;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A buffer pool over a {@link PageFile}: a fixed number of page-sized frames in one off-heap
 * region charged to an {@link EngineMemory}, CLOCK replacement, pin/unpin, and a version stamp
 * per frame for optimistic readers.
 *
 * <p><b>Writer protocol.</b> {@link #pin} returns the frame holding a page, reading it from the
 * file (checksum verified) on a miss; {@link #pinNew} gives a zeroed frame for a fresh page. A
 * pinned frame is never evicted. Changes to a frame's bytes are bracketed by
 * {@link #beginWrite}/{@link #endWrite}, which mark it dirty and move its stamp (odd while the
 * change is under way). {@link #unpin} releases a pin. Dirty frames are written back, sealed with
 * their checksum, when evicted and by {@link #flush()}. The writer must only dirty pages that the
 * file's last commit does not reference (shadow paging): a written-back page is then never one a
 * crash could tear out of the committed state.
 *
 * <p><b>Reader protocol (optimistic).</b> {@link #frameOf} finds (loading on a miss) the frame of a
 * page without pinning it; {@link #stamp} reads the frame's stamp, the reader reads the bytes,
 * then {@link #validate} checks that the stamp is unchanged and the frame still holds the page. A
 * failed validation means the bytes may be torn: the reader discards what it read and retries.
 * Readers never block the writer and write nothing but the CLOCK reference bit.
 *
 * <p><b>Thread safety.</b> One writer thread and any number of optimistic readers. Misses, pins
 * and eviction are serialized on the pool.
 *
 * <p><b>Bad input.</b> A page that fails its checksum gives {@link CorruptPageException} (naming
 * file and page) and is not cached; a pool whose frames are all pinned gives
 * {@link IllegalStateException}.
 */
public final class BufferPool implements AutoCloseable {
  private final PageFile file;
  private final int pageBytes;
  private final int frameCount;
  private final OffHeapBuffer buffer;
  private final MemorySegment frames;
  private final int[] frameToPage;
  private final int[] pins;
  private final boolean[] dirty;
  private final byte[] referenced;
  private final AtomicLongArray stamps;
  private volatile int[] pageToFrame;
  private int hand;
  private long misses;
  private boolean closed;

  /**
   * A pool of {@code frameCount} frames over {@code file}, allocated from {@code memory}.
   *
   * @throws IllegalArgumentException if {@code frameCount < 4}
   */
  public BufferPool(PageFile file, int frameCount, EngineMemory memory) {
    this.file = Objects.requireNonNull(file, "file");
    Objects.requireNonNull(memory, "memory");
    if (frameCount < 4) {
      throw new IllegalArgumentException("a buffer pool needs at least 4 frames, got " + frameCount);
    }
    this.pageBytes = file.pageBytes();
    this.frameCount = frameCount;
    this.buffer = memory.allocate((long) frameCount * pageBytes, Placement.HUGE_PAGES);
    this.frames = buffer.segment();
    this.frameToPage = new int[frameCount];
    Arrays.fill(frameToPage, -1);
    this.pins = new int[frameCount];
    this.dirty = new boolean[frameCount];
    this.referenced = new byte[frameCount];
    this.stamps = new AtomicLongArray(frameCount);
    int[] map = new int[Math.max(64, file.usedPages() * 2)];
    Arrays.fill(map, -1);
    this.pageToFrame = map;
  }

  /** Every frame, frame {@code f} at byte offset {@code f * pageBytes}. */
  public MemorySegment frames() {
    return frames;
  }

  /** Byte offset of frame {@code frame} in {@link #frames()}. */
  public long offset(int frame) {
    return (long) frame * pageBytes;
  }

  public int pageBytes() {
    return pageBytes;
  }

  public int frameCount() {
    return frameCount;
  }

  public PageFile file() {
    return file;
  }

  /** Pages read from the file so far. */
  public synchronized long misses() {
    return misses;
  }

  // ---- writer ------------------------------------------------------------------------------

  /** The frame holding {@code page}, pinned; reads and verifies the page on a miss. */
  public synchronized int pin(int page) {
    int frame = load(page);
    pins[frame]++;
    return frame;
  }

  /** A zeroed, pinned, dirty frame for {@code page}, a page never written before or freed. */
  public synchronized int pinNew(int page) {
    checkOpen();
    int frame = resident(page);
    if (frame < 0) {
      frame = victim();
      install(frame, page);
    }
    beginWrite(frame);
    frames.asSlice(offset(frame), pageBytes).fill((byte) 0);
    endWrite(frame);
    pins[frame]++;
    return frame;
  }

  /** Releases one pin of {@code frame}. */
  public synchronized void unpin(int frame) {
    if (pins[frame] <= 0) {
      throw new IllegalStateException("frame " + frame + " is not pinned");
    }
    pins[frame]--;
  }

  /** Starts a change of {@code frame}'s bytes: optimistic readers of it will retry. */
  public void beginWrite(int frame) {
    stamps.incrementAndGet(frame);
    VarHandle.storeStoreFence();
    dirty[frame] = true;
  }

  /** Ends a change begun by {@link #beginWrite}. */
  public void endWrite(int frame) {
    stamps.incrementAndGet(frame);
  }

  /**
   * Drops the frame of a page that was freed (its contents are dead): readers that still hold the
   * page's number fail validation; nothing is written back.
   */
  public synchronized void discard(int page) {
    int frame = resident(page);
    if (frame < 0) {
      return;
    }
    if (pins[frame] > 0) {
      throw new IllegalStateException("page " + page + " is freed while pinned");
    }
    beginWrite(frame);
    pageToFrame[page] = -1;
    frameToPage[frame] = -1;
    dirty[frame] = false;
    endWrite(frame);
  }

  /** Writes every dirty frame back to the file (sealed with its checksum). */
  public synchronized void flush() {
    checkOpen();
    for (int f = 0; f < frameCount; f++) {
      if (dirty[f] && frameToPage[f] >= 0) {
        file.write(frameToPage[f], frames.asSlice(offset(f), pageBytes));
        dirty[f] = false;
      }
    }
  }

  /** Forgets every frame without writing anything back (after a failed transaction). */
  public synchronized void invalidateAll() {
    for (int f = 0; f < frameCount; f++) {
      if (pins[f] > 0) {
        throw new IllegalStateException("frame " + f + " is pinned");
      }
      beginWrite(f);
      if (frameToPage[f] >= 0) {
        pageToFrame[frameToPage[f]] = -1;
      }
      frameToPage[f] = -1;
      dirty[f] = false;
      endWrite(f);
    }
  }

  // ---- readers -----------------------------------------------------------------------------

  /**
   * The frame holding {@code page}, loading it on a miss, without a pin: the result is only good
   * together with a {@link #stamp} check as described in the class comment.
   */
  public int frameOf(int page) {
    int[] map = pageToFrame;
    if (page >= 0 && page < map.length) {
      int frame = map[page];
      if (frame >= 0 && frameToPage[frame] == page) {
        referenced[frame] = 1;
        return frame;
      }
    }
    synchronized (this) {
      return load(page);
    }
  }

  /** The stamp of {@code frame}, or -1 while a change is under way. */
  public long stamp(int frame) {
    long s = stamps.get(frame);
    return (s & 1) == 0 ? s : -1;
  }

  /**
   * Whether {@code frame} still holds {@code page} unchanged since {@code stamp} was read. A
   * successful validation also marks the frame recently used, so CLOCK keeps the pages of a
   * reader's path resident while it works below them.
   */
  public boolean validate(int frame, int page, long stamp) {
    VarHandle.loadLoadFence();
    if (stamp >= 0 && stamps.get(frame) == stamp && frameToPage[frame] == page) {
      if (referenced[frame] == 0) {
        referenced[frame] = 1;
      }
      return true;
    }
    return false;
  }

  /**
   * Prefetches {@code page} for a reader that will need it soon: a page not in the pool gets a
   * {@link PageFile#adviseWillNeed} hint so the kernel reads it while the reader works on earlier
   * pages; a resident page needs nothing.
   */
  public void prefetch(int page) {
    int[] map = pageToFrame;
    if (page >= 0 && page < map.length && map[page] >= 0) {
      return;
    }
    file.adviseWillNeed(page);
  }

  // ---- internals (under the pool's lock) ---------------------------------------------------

  private int resident(int page) {
    int[] map = pageToFrame;
    return page < map.length ? map[page] : -1;
  }

  private int load(int page) {
    checkOpen();
    int frame = resident(page);
    if (frame >= 0) {
      referenced[frame] = 1;
      return frame;
    }
    frame = victim();
    beginWrite(frame);
    try {
      file.read(page, frames.asSlice(offset(frame), pageBytes));
    } catch (RuntimeException e) {
      dirty[frame] = false;
      endWrite(frame);
      throw e;
    }
    dirty[frame] = false;
    mapPage(frame, page);
    endWrite(frame);
    misses++;
    return frame;
  }

  private void install(int frame, int page) {
    beginWrite(frame);
    mapPage(frame, page);
    endWrite(frame);
  }

  private void mapPage(int frame, int page) {
    int[] map = pageToFrame;
    if (page >= map.length) {
      int[] larger = Arrays.copyOf(map, Math.max(page + 1, map.length * 2));
      Arrays.fill(larger, map.length, larger.length, -1);
      map = larger;
    }
    map[page] = frame;
    frameToPage[frame] = page;
    referenced[frame] = 1;
    pageToFrame = map;
  }

  /** A free frame, or the CLOCK victim written back if dirty and unmapped. */
  private int victim() {
    for (int step = 0; step < 2 * frameCount + 1; step++) {
      int f = hand;
      hand = hand + 1 == frameCount ? 0 : hand + 1;
      if (pins[f] > 0) {
        continue;
      }
      if (frameToPage[f] < 0) {
        return f;
      }
      if (referenced[f] != 0) {
        referenced[f] = 0;
        continue;
      }
      evict(f);
      return f;
    }
    throw new IllegalStateException("buffer pool of " + frameCount + " frames has every frame pinned");
  }

  private void evict(int frame) {
    int page = frameToPage[frame];
    if (dirty[frame]) {
      file.write(page, frames.asSlice(offset(frame), pageBytes));
    }
    beginWrite(frame);
    pageToFrame[page] = -1;
    frameToPage[frame] = -1;
    dirty[frame] = false;
    endWrite(frame);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("buffer pool over " + file.path() + " is closed");
    }
  }

  /** Frees the frames without writing anything back (call {@link #flush()} first); idempotent. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      buffer.close();
    }
  }
}
