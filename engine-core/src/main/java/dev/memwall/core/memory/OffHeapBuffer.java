package dev.memwall.core.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One zeroed, 64-byte aligned off-heap region owned by its own shared {@link Arena} and charged
 * to a {@link MemoryBudget} for as long as it is open.
 *
 * <p>Ownership: whoever allocated the buffer closes it; {@link #close} frees the memory, returns
 * the bytes to the budget and is idempotent. Any access through {@link #segment()} after close
 * fails with {@link IllegalStateException} instead of touching freed memory.
 *
 * <p>Thread safety: the segment may be read and written from any thread (shared arena); closing
 * while another thread still accesses it is the caller's error and is detected by FFM.
 *
 * <p>Cost: closing a shared arena performs a handshake with every running thread (60-80 us on
 * these machines with one other busy thread), so structures should hold few large buffers rather
 * than many small ones.
 */
public final class OffHeapBuffer implements AutoCloseable {
  private static final long CACHE_LINE_BYTES = 64;
  private static final AtomicLong LIVE_BUFFERS = new AtomicLong();
  private static final AtomicLong LIVE_BYTES = new AtomicLong();

  private final Arena arena;
  private final MemorySegment segment;
  private final boolean hugePages;
  private final MemoryBudget budget;
  private final Consumer<OffHeapBuffer> onClose;
  private final AtomicBoolean closed = new AtomicBoolean();

  private OffHeapBuffer(Arena arena, MemorySegment segment, boolean hugePages, MemoryBudget budget,
      Consumer<OffHeapBuffer> onClose) {
    this.arena = arena;
    this.segment = segment;
    this.hugePages = hugePages;
    this.budget = budget;
    this.onClose = onClose;
  }

  /**
   * Reserves {@code bytes} from {@code budget}, then allocates them.
   *
   * @param onClose called once when the buffer is closed (the owner's bookkeeping), may be a no-op
   * @throws BudgetExceededException if the budget cannot cover {@code bytes}; nothing is allocated
   */
  static OffHeapBuffer allocate(MemoryBudget budget, long bytes, Placement placement,
      Consumer<OffHeapBuffer> onClose) {
    if (bytes < 0) {
      throw new IllegalArgumentException("cannot allocate a negative size: " + bytes);
    }
    budget.reserve(bytes);
    Arena arena = Arena.ofShared();
    try {
      MemorySegment segment = null;
      if (placement == Placement.HUGE_PAGES && bytes >= HugePages.HUGE_PAGE_BYTES) {
        segment = HugePages.map(bytes, arena).orElse(null);
      }
      boolean huge = segment != null;
      if (!huge) {
        segment = arena.allocate(bytes, CACHE_LINE_BYTES);
      }
      LIVE_BUFFERS.incrementAndGet();
      LIVE_BYTES.addAndGet(bytes);
      return new OffHeapBuffer(arena, segment, huge, budget, onClose);
    } catch (RuntimeException | OutOfMemoryError e) {
      arena.close();
      budget.release(bytes);
      throw e;
    }
  }

  /** The whole region; invalid once the buffer is closed. */
  public MemorySegment segment() {
    return segment;
  }

  public long byteSize() {
    return segment.byteSize();
  }

  /** Whether the region really is backed by a huge-page mapping (not just asked for one). */
  public boolean hugePages() {
    return hugePages;
  }

  public boolean isClosed() {
    return closed.get();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      long bytes = segment.byteSize();
      arena.close();
      budget.release(bytes);
      LIVE_BUFFERS.decrementAndGet();
      LIVE_BYTES.addAndGet(-bytes);
      onClose.accept(this);
    }
  }

  /** Buffers allocated in this process and not yet closed (Arrow's included). */
  public static long liveBuffers() {
    return LIVE_BUFFERS.get();
  }

  /** Bytes in {@link #liveBuffers()}. */
  public static long liveBytes() {
    return LIVE_BYTES.get();
  }
}
