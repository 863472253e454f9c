package dev.memwall.core.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One 64-byte aligned off-heap region charged to a {@link MemoryBudget} for as long as it is open,
 * its segment scoped to a shared {@link Arena} of its own; zeroed, unless it is a region a
 * {@link BufferRecycler} hands out again.
 *
 * <p>Ownership: whoever allocated the buffer closes it; {@link #close} ends the segment's scope,
 * returns the bytes to the budget (or, for memory from a {@link BufferRecycler}, the region to its
 * pool, still charged) and is idempotent. Any access through {@link #segment()} after close fails
 * with {@link IllegalStateException} instead of touching freed or reused memory.
 *
 * <p>Thread safety: the segment may be read and written from any thread (shared arena); closing
 * while another thread still accesses it is the caller's error and is detected by FFM.
 *
 * <p>Cost: closing a shared arena performs a handshake with every running thread, so structures
 * should hold few large buffers rather than many small ones; recycled regions save the rest of an
 * allocation's cost (mapping, page faults, zeroing by the kernel, unmapping).
 */
public final class OffHeapBuffer implements AutoCloseable {
  private static final long CACHE_LINE_BYTES = 64;
  private static final AtomicLong LIVE_BUFFERS = new AtomicLong();
  private static final AtomicLong LIVE_BYTES = new AtomicLong();

  private final Arena scope;
  private final MemorySegment segment;
  private final boolean hugePages;
  private final BufferRecycler.Region region;
  private final BufferRecycler recycler;
  private final MemoryBudget budget;
  private final Consumer<OffHeapBuffer> onClose;
  private final AtomicBoolean closed = new AtomicBoolean();

  private OffHeapBuffer(Arena scope, MemorySegment segment, boolean hugePages, BufferRecycler.Region region,
      BufferRecycler recycler, MemoryBudget budget, Consumer<OffHeapBuffer> onClose) {
    this.scope = scope;
    this.segment = segment;
    this.hugePages = hugePages;
    this.region = region;
    this.recycler = recycler;
    this.budget = budget;
    this.onClose = onClose;
    LIVE_BUFFERS.incrementAndGet();
    LIVE_BYTES.addAndGet(segment.byteSize());
  }

  /**
   * Reserves {@code bytes} from {@code budget}, then allocates them, zeroed, in an arena of their own.
   *
   * @param onClose called once when the buffer is closed (the owner's bookkeeping), may be a no-op
   * @throws BudgetExceededException if the budget cannot cover {@code bytes}; nothing is allocated
   */
  static OffHeapBuffer allocate(MemoryBudget budget, long bytes, Placement placement,
      Consumer<OffHeapBuffer> onClose) {
    requireSize(bytes);
    budget.reserve(bytes);
    Arena arena = Arena.ofShared();
    try {
      Mapping mapping = Mapping.of(bytes, placement, arena);
      return new OffHeapBuffer(arena, mapping.memory(), mapping.hugePages(), null, null, budget, onClose);
    } catch (RuntimeException | OutOfMemoryError e) {
      arena.close();
      budget.release(bytes);
      throw e;
    }
  }

  /**
   * {@code bytes} from a region of {@code recycler}'s pool, or from a new region charged to its
   * budget (which {@linkplain BufferRecycler#reserve empties the pool} before refusing); the region
   * goes back to the pool when the buffer closes. A reused region is not cleared: this is for Arrow,
   * which clears what it needs itself. Sizes the recycler does not pool are allocated as by
   * {@link #allocate(MemoryBudget, long, Placement, Consumer)}.
   *
   * @throws BudgetExceededException if the budget cannot cover a new region
   */
  static OffHeapBuffer recycled(BufferRecycler recycler, long bytes, Placement placement,
      Consumer<OffHeapBuffer> onClose) {
    requireSize(bytes);
    if (!recycler.recycles(bytes)) {
      return allocate(recycler.budget(), bytes, placement, onClose);
    }
    long classBytes = BufferRecycler.classBytes(bytes);
    boolean huge = placement == Placement.HUGE_PAGES && classBytes >= HugePages.HUGE_PAGE_BYTES;
    BufferRecycler.Region region = recycler.take(classBytes, huge);
    if (region == null) {
      recycler.reserve(classBytes);
      Arena owner = Arena.ofShared();
      try {
        Mapping mapping = Mapping.of(classBytes, placement, owner);
        region = new BufferRecycler.Region(owner, mapping.memory(), mapping.hugePages());
      } catch (RuntimeException | OutOfMemoryError e) {
        owner.close();
        recycler.budget().release(classBytes);
        throw e;
      }
    }
    Arena scope = Arena.ofShared();
    MemorySegment segment = region.memory().asSlice(0, bytes).reinterpret(scope, null);
    return new OffHeapBuffer(scope, segment, region.hugePages(), region, recycler, recycler.budget(), onClose);
  }

  private static void requireSize(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("cannot allocate a negative size: " + bytes);
    }
  }

  /** Zeroed memory owned by an arena: a huge-page mapping where asked for and possible, else the arena's own. */
  private record Mapping(MemorySegment memory, boolean hugePages) {
    static Mapping of(long bytes, Placement placement, Arena arena) {
      if (placement == Placement.HUGE_PAGES && bytes >= HugePages.HUGE_PAGE_BYTES) {
        MemorySegment mapped = HugePages.map(bytes, arena).orElse(null);
        if (mapped != null) {
          return new Mapping(mapped, true);
        }
      }
      return new Mapping(arena.allocate(bytes, CACHE_LINE_BYTES), false);
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
      scope.close();
      if (region != null) {
        recycler.give(region);
      } else {
        budget.release(bytes);
      }
      LIVE_BUFFERS.decrementAndGet();
      LIVE_BYTES.addAndGet(-bytes);
      onClose.accept(this);
    }
  }

  /** Buffers allocated in this process and not yet closed (Arrow's included; pooled regions are not buffers). */
  public static long liveBuffers() {
    return LIVE_BUFFERS.get();
  }

  /** Bytes in {@link #liveBuffers()}. */
  public static long liveBytes() {
    return LIVE_BYTES.get();
  }
}
