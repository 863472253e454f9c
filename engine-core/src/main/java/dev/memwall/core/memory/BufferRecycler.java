package dev.memwall.core.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Freed off-heap regions of one {@link EngineMemory}, kept for reuse instead of being returned to
 * the operating system: a query allocates and frees thousands of batch-sized buffers, and a fresh
 * region costs a {@code mmap}, a page fault and kernel zeroing per page and a {@code munmap} later,
 * far more than handing back one that is already mapped (TPC-H Q3 spent about a sixth of its time
 * there).
 *
 * <p>Regions are pooled by size class (4 classes per power of two, so a request is rounded up by at
 * most a quarter; Arrow's power-of-two requests fit their class exactly) and by whether they are on
 * huge pages; a class is a LIFO stack, so the most recently freed, cache-warm region is reused first.
 *
 * <p>Accounting: a pooled region stays charged to the budget, which therefore bounds the real
 * off-heap footprint; {@link #reserve} empties the pool before it lets the budget refuse a
 * request, so pooling never makes an allocation fail. At most {@code limitBytes} are pooled; a region
 * freed beyond that is unmapped at once.
 *
 * <p>Idle regions go back to the operating system: a region pooled for longer than {@link #IDLE_NANOS}
 * without being taken is freed by the next region given to the pool after that (as jemalloc's decay
 * returns dirty pages), so that a large query's memory does not stay mapped for the rest of a host's
 * process when nothing of its size follows, while a workload that repeats (the same queries, run
 * again) keeps reusing what it freed. There is no thread of its own: a pool nothing is given to keeps
 * its regions until {@link #trim} or {@link #close}.
 *
 * <p>A child memory's pool (an operator's working memory, which lives for one query) hands its regions
 * to its parent's pool when it closes, and takes from the parent's pool when its own has none of a
 * size, each region's charge moving with it: the next query's operators reuse the regions, mapped,
 * faulted in and cache-warm, instead of mapping fresh ones and unmapping them again, which costs a
 * kernel call, zeroing and a page fault per page.
 *
 * <p>Safety: with {@linkplain #scopeChecks() scope checks} each hand-out of a region gets a fresh
 * shared arena as its scope, so a segment kept after its buffer closed fails on access instead of
 * reading the region's next user; without them (the default outside the test suite) a hand-out is
 * a bounds-checked slice of the region, and a buffer's close costs no thread handshake (see
 * {@link OffHeapBuffer}).
 *
 * <p>Thread safety: every method may be called from any thread.
 */
final class BufferRecycler {
  /** Regions larger than this are never pooled: rare, and too large to keep idle. */
  static final long MAX_POOLED_BYTES = 256L << 20;
  /** How long a pooled region may stay untaken before it is freed: ten seconds. */
  static final long IDLE_NANOS = 10_000_000_000L;
  private static final long MIN_CLASS_BYTES = 8;
  private static final AtomicLong POOLED_REGIONS = new AtomicLong();

  /**
   * Off-heap memory that outlives the buffers handed out over it, until {@link #free}: mapped on huge
   * pages or taken from the C library's allocator outside any arena (see {@link NativeMemory} for why),
   * or, where neither is possible, owned by a shared arena of its own ({@code owner}, else null).
   */
  record Region(MemorySegment memory, boolean hugePages, Arena owner) {
    /** {@code bytes} of zeroed memory, on huge pages where {@code placement} asks and the platform can. */
    static Region allocate(long bytes, Placement placement) {
      if (placement == Placement.HUGE_PAGES && bytes >= HugePages.HUGE_PAGE_BYTES) {
        MemorySegment mapping = HugePages.map(bytes);
        if (mapping != null) {
          return new Region(mapping.asSlice(0, bytes), true, null);
        }
      }
      if (NativeMemory.isSupported()) {
        return new Region(NativeMemory.allocate(bytes, OffHeapBuffer.CACHE_LINE_BYTES), false, null);
      }
      Arena owner = Arena.ofShared();
      try {
        return new Region(owner.allocate(bytes, OffHeapBuffer.CACHE_LINE_BYTES), false, owner);
      } catch (RuntimeException | OutOfMemoryError e) {
        owner.close();
        throw e;
      }
    }

    long bytes() {
      return memory.byteSize();
    }

    void free() {
      if (owner != null) {
        owner.close();
      } else if (hugePages) {
        HugePages.unmap(memory);
      } else {
        NativeMemory.free(memory);
      }
    }
  }

  private final MemoryBudget budget;
  private final long limitBytes;
  private final boolean scopeChecks;
  /** The pool of the memory whose budget is {@link #budget}'s parent, emptied too before a refusal; or null. */
  private final BufferRecycler parent;
  /** Per size class, the newest first: a stack for reuse, whose oldest (last) entries are freed when idle. */
  private final ConcurrentHashMap<Long, Deque<Idle>> pooled = new ConcurrentHashMap<>();
  private final AtomicLong pooledBytes = new AtomicLong();
  private final LongSupplier clock;
  /** When the pool is next looked over for idle regions ({@link #clock} time). */
  private final AtomicLong nextSweep;
  private volatile boolean closed;
  /** The open recyclers of child memories, for {@link #trimTree}. */
  private final Set<BufferRecycler> children = ConcurrentHashMap.newKeySet();

  BufferRecycler(MemoryBudget budget, long limitBytes) {
    this(budget, limitBytes, OffHeapBuffer.SCOPE_CHECKS);
  }

  BufferRecycler(MemoryBudget budget, long limitBytes, boolean scopeChecks) {
    this(budget, limitBytes, scopeChecks, null);
  }

  BufferRecycler(MemoryBudget budget, long limitBytes, boolean scopeChecks, BufferRecycler parent) {
    this(budget, limitBytes, scopeChecks, parent, System::nanoTime);
  }

  /** As the other constructors, with the clock that ages pooled regions ({@link System#nanoTime} but in tests). */
  BufferRecycler(MemoryBudget budget, long limitBytes, boolean scopeChecks, BufferRecycler parent, LongSupplier clock) {
    if (limitBytes < 0) {
      throw new IllegalArgumentException("a recycling limit must be >= 0, got " + limitBytes);
    }
    this.budget = budget;
    this.limitBytes = limitBytes;
    this.scopeChecks = scopeChecks;
    this.parent = parent;
    this.clock = clock;
    this.nextSweep = new AtomicLong(clock.getAsLong() + IDLE_NANOS);
    if (parent != null) {
      parent.children.add(this);
    }
  }

  /** Whether every hand-out gets an arena of its own, closed with its buffer. */
  boolean scopeChecks() {
    return scopeChecks;
  }

  MemoryBudget budget() {
    return budget;
  }

  /** The bytes of the region that serves a request of {@code bytes}: its size class. */
  static long classBytes(long bytes) {
    if (bytes <= MIN_CLASS_BYTES) {
      return MIN_CLASS_BYTES;
    }
    long quarter = Long.highestOneBit(bytes - 1) >>> 2;
    return (bytes + quarter - 1) & -quarter;
  }

  /** Whether requests of {@code bytes} are served from the pool at all. */
  boolean recycles(long bytes) {
    return !closed && limitBytes > 0 && bytes > 0 && classBytes(bytes) <= Math.min(MAX_POOLED_BYTES, limitBytes);
  }

  /**
   * A pooled region of class {@code classBytes}, already charged to the budget, or null: this pool's,
   * else the parent memory's (its charge moved to this budget; null where this budget refuses it).
   */
  Region take(long classBytes, boolean hugePages) {
    Deque<Idle> stack = pooled.get(key(classBytes, hugePages));
    Idle idle = stack == null ? null : stack.pollFirst();
    if (idle != null) {
      return unpooled(idle);
    }
    Region region;
    if (parent == null || closed || (region = parent.take(classBytes, hugePages)) == null) {
      return null;
    }
    parent.budget.release(region.bytes()); // the parent's pool no longer holds it ...
    try {
      budget.reserve(region.bytes()); // ... this budget does, and through it the parent's again
      return region;
    } catch (BudgetExceededException refused) {
      parent.adopt(region);
      return null;
    }
  }

  /** Pools {@code region}, which no budget holds now, charging it to this one; frees it where that is refused. */
  private void adopt(Region region) {
    try {
      budget.reserve(region.bytes());
    } catch (BudgetExceededException refused) {
      region.free();
      return;
    }
    give(region);
  }

  /** Pools {@code region}, which stays charged; frees it and returns its charge when the pool is full. */
  void give(Region region) {
    long bytes = region.bytes();
    if (closed) {
      discard(region);
      return;
    }
    if (pooledBytes.addAndGet(bytes) > limitBytes) {
      pooledBytes.addAndGet(-bytes);
      discard(region);
      return;
    }
    POOLED_REGIONS.incrementAndGet();
    long now = clock.getAsLong();
    pooled.computeIfAbsent(key(bytes, region.hugePages()), k -> new ConcurrentLinkedDeque<>())
        .offerFirst(new Idle(region, now));
    if (closed) {
      trim(); // raced with close: free what it may have missed
    }
    long sweep = nextSweep.get();
    if (now - sweep >= 0 && nextSweep.compareAndSet(sweep, now + IDLE_NANOS / 4)) {
      freeIdle(now);
    }
  }

  /** Frees the regions pooled at least {@link #IDLE_NANOS} before {@code now}; returns their bytes. */
  long freeIdle(long now) {
    long bytes = 0;
    for (Deque<Idle> stack : pooled.values()) {
      for (Idle oldest = stack.peekLast(); oldest != null && now - oldest.since() >= IDLE_NANOS;
          oldest = stack.peekLast()) {
        if (stack.removeLastOccurrence(oldest)) { // else another thread took it first
          Region region = unpooled(oldest);
          bytes += region.bytes();
          discard(region);
        }
      }
    }
    return bytes;
  }

  /**
   * Charges {@code bytes} to the budget, first emptying the pool (and then the parent memory's) if
   * the budget would refuse them.
   *
   * @throws BudgetExceededException if the budget refuses them even with the pools empty
   */
  void reserve(long bytes) {
    while (true) {
      try {
        budget.reserve(bytes);
        return;
      } catch (BudgetExceededException e) {
        long freed = trim();
        for (BufferRecycler up = parent; freed == 0 && up != null; up = up.parent) {
          freed = up.trim();
        }
        if (freed == 0) {
          throw e;
        }
      }
    }
  }

  /** Frees every pooled region and returns its charge; returns the bytes freed. */
  long trim() {
    return empty(this::discard);
  }

  /** {@link #trim}s this pool and those of its open children, theirs first; returns the bytes freed. */
  long trimTree() {
    long freed = 0;
    for (BufferRecycler child : children) {
      freed += child.trimTree();
    }
    return freed + trim();
  }

  /** Takes every region out of the pool and hands it to {@code to}; returns their bytes. */
  private long empty(Consumer<Region> to) {
    long bytes = 0;
    for (Deque<Idle> stack : pooled.values()) {
      for (Idle idle = stack.pollFirst(); idle != null; idle = stack.pollFirst()) {
        Region region = unpooled(idle);
        bytes += region.bytes();
        to.accept(region);
      }
    }
    return bytes;
  }

  /**
   * Hands the pool to the parent memory's (see the class comment), or frees it where there is none;
   * regions given back later (buffers that outlive their memory's close) are freed at once.
   */
  void close() {
    closed = true;
    if (parent != null) {
      parent.children.remove(this);
    }
    if (parent == null) {
      trim();
      return;
    }
    empty(region -> {
      budget.release(region.bytes()); // this budget's and its ancestors' charge; the parent's pool takes it again
      parent.adopt(region);
    });
  }

  long pooledBytes() {
    return pooledBytes.get();
  }

  /** Regions pooled by every recycler of the process: with {@link OffHeapBuffer#liveBuffers()}, what leak checks count. */
  static long pooledRegionsInProcess() {
    return POOLED_REGIONS.get();
  }

  private void discard(Region region) {
    region.free();
    budget.release(region.bytes());
  }

  /** The region of {@code idle}, just taken out of a class's stack, no longer counted as pooled. */
  private Region unpooled(Idle idle) {
    pooledBytes.addAndGet(-idle.region().bytes());
    POOLED_REGIONS.decrementAndGet();
    return idle.region();
  }

  /** A pooled region and when it was given to the pool. */
  private record Idle(Region region, long since) {}

  private static Long key(long classBytes, boolean hugePages) {
    return classBytes << 1 | (hugePages ? 1 : 0);
  }
}
