package dev.memwall.core.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One 64-byte aligned off-heap region charged to a {@link MemoryBudget} for as long as it is open;
 * zeroed, unless it is a region a {@link BufferRecycler} hands out again for Arrow.
 *
 * <p>Ownership: whoever allocated the buffer closes it; {@link #close} returns the bytes to the
 * budget (or, for memory from a {@link BufferRecycler}, the region to its pool, still charged) and
 * is idempotent.
 *
 * <p>Scopes and their cost: closing a shared {@link Arena} performs a handshake with every running
 * thread: when each of the thousands of buffers a query frees had an arena of its own, a quarter
 * of the wall-clock samples of TPC-H Q10's aggregation pipeline at two threads waited in those
 * handshakes. So a buffer over a pooled region (the common case: every size up to
 * {@link BufferRecycler#MAX_POOLED_BYTES}) is, by default, a slice of the region, which has no arena
 * at all (see {@link NativeMemory}): bounds-checked, but an access after {@link #close} reads
 * whatever the region's next user wrote, or memory no longer mapped once the region is freed. With
 * scope checks ({@link #SCOPE_CHECKS}: where assertions are enabled, as in the test suite, or with
 * {@code -Dmemwall.memory.scopeChecks=true}) each buffer's segment gets a shared arena of its own,
 * closed with the buffer, and any access after close fails with {@link IllegalStateException}
 * instead of touching freed or reused memory. Buffers too large to pool always have an arena of
 * their own.
 *
 * <p>Thread safety: the segment may be read and written from any thread (shared arenas); closing
 * while another thread still accesses it is the caller's error (detected by FFM under scope checks).
 */
public final class OffHeapBuffer implements AutoCloseable {
  /**
   * Whether every buffer's segment has an arena of its own, so that an access after close fails
   * (see the class comment): {@code -Dmemwall.memory.scopeChecks=true|false}, or else whether
   * assertions are enabled for this class.
   */
  public static final boolean SCOPE_CHECKS = scopeChecks();
  /** The alignment of every buffer: a cache line. */
  static final long CACHE_LINE_BYTES = 64;
  private static final AtomicLong LIVE_BUFFERS = new AtomicLong();
  private static final AtomicLong LIVE_BYTES = new AtomicLong();

  /** Closed with the buffer; null for a slice of a pooled region without scope checks. */
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
    return allocateReserved(budget, bytes, placement, onClose);
  }

  /** {@link #allocate(MemoryBudget, long, Placement, Consumer)} of {@code bytes} already reserved from {@code budget}. */
  private static OffHeapBuffer allocateReserved(MemoryBudget budget, long bytes, Placement placement,
      Consumer<OffHeapBuffer> onClose) {
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
   * goes back to the pool when the buffer closes. A new region is zeroed; a reused one is zeroed
   * only when {@code zeroed} asks for it (Arrow clears what it needs itself). Sizes the recycler
   * does not pool are allocated as by {@link #allocate(MemoryBudget, long, Placement, Consumer)}.
   *
   * <p>The buffer gets an arena of its own where {@code recycler} {@linkplain
   * BufferRecycler#scopeChecks() checks scopes} (see the class comment).
   *
   * @throws BudgetExceededException if the budget cannot cover a new region
   */
  static OffHeapBuffer recycled(BufferRecycler recycler, long bytes, Placement placement, boolean zeroed,
      Consumer<OffHeapBuffer> onClose) {
    requireSize(bytes);
    if (!recycler.recycles(bytes)) {
      recycler.reserve(bytes); // the pool (and a parent's) is given up before the budget refuses
      return allocateReserved(recycler.budget(), bytes, placement, onClose);
    }
    long classBytes = BufferRecycler.classBytes(bytes);
    boolean huge = placement == Placement.HUGE_PAGES && classBytes >= HugePages.HUGE_PAGE_BYTES;
    BufferRecycler.Region region = recycler.take(classBytes, huge);
    boolean reused = region != null;
    if (region == null) {
      recycler.reserve(classBytes);
      try {
        region = BufferRecycler.Region.allocate(classBytes, placement);
      } catch (RuntimeException | OutOfMemoryError e) {
        recycler.budget().release(classBytes);
        throw e;
      }
    }
    MemorySegment slice = region.memory().asSlice(0, bytes);
    if (reused && zeroed) {
      slice.fill((byte) 0);
    }
    Arena scope = recycler.scopeChecks() ? Arena.ofShared() : null;
    MemorySegment segment = scope == null ? slice : slice.reinterpret(scope, null);
    return new OffHeapBuffer(scope, segment, region.hugePages(), region, recycler, recycler.budget(), onClose);
  }

  private static boolean scopeChecks() {
    String property = System.getProperty("memwall.memory.scopeChecks");
    return property != null ? Boolean.parseBoolean(property) : OffHeapBuffer.class.desiredAssertionStatus();
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
      if (scope != null) {
        scope.close();
      }
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
