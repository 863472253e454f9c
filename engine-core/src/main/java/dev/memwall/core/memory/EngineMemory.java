package dev.memwall.core.memory;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The root of all off-heap memory of one engine instance (a process, a query, a test): a
 * {@link MemoryBudget}, an Arrow {@link BufferAllocator} whose buffers are FFM segments charged to
 * that budget, and raw {@link OffHeapBuffer}s for the engine's own structures (hash tables,
 * partitions, trees). Freed buffers of both kinds are {@linkplain BufferRecycler recycled}: their
 * regions stay mapped and charged to the budget, up to a limit, for the next allocation of their
 * size (a raw buffer's reused region is zeroed again); a buffer's close then costs no thread
 * handshake outside the test suite (see {@link OffHeapBuffer}).
 *
 * <p>Ownership: {@link #close} checks that every Arrow buffer and raw buffer handed out has been
 * released and throws {@link MemoryLeakException} describing what leaked otherwise. That check is
 * what the test suite relies on to fail leaking tests.
 *
 * <p>Thread safety: allocation and release may happen from any thread; {@link #close} must not
 * race with them.
 */
public final class EngineMemory implements AutoCloseable {
  /**
   * The most freed memory kept for reuse by default (a quarter of the budget, at most this): an eighth
   * of the machine's physical memory (of its container's limit, where it has one), at least 1 GiB: a
   * query that frees more than the pool keeps maps, faults in and zeroes the rest afresh each time it
   * runs, so the limit grows with the data a machine can hold. What the pool keeps was in use just
   * before, stays charged to the budget, is freed before the budget refuses anything, and is freed
   * once it has been idle for a while ({@link BufferRecycler}).
   */
  public static final long DEFAULT_RECYCLE_LIMIT_BYTES = defaultRecycleLimit();

  private final MemoryBudget budget;
  private final BufferRecycler recycler;
  private final RootAllocator arrow;
  private final Set<OffHeapBuffer> rawBuffers = ConcurrentHashMap.newKeySet();

  private EngineMemory(MemoryBudget budget, long recycleLimitBytes, boolean scopeChecks) {
    this(budget, new BufferRecycler(budget, recycleLimitBytes, scopeChecks));
  }

  private EngineMemory(MemoryBudget budget, BufferRecycler recycler) {
    this.budget = budget;
    this.recycler = recycler;
    this.arrow = new RootAllocator(RootAllocator.configBuilder()
        .allocationManagerFactory(FfmAllocationManager.factory(recycler))
        .maxAllocation(Long.MAX_VALUE)
        .build());
  }

  /**
   * Engine memory limited by {@code budget}, keeping up to a quarter of it (at most
   * {@link #DEFAULT_RECYCLE_LIMIT_BYTES}) of freed memory for reuse.
   */
  public static EngineMemory create(MemoryBudget budget) {
    return create(budget, Math.min(DEFAULT_RECYCLE_LIMIT_BYTES, budget.limitBytes() / 4));
  }

  /**
   * Engine memory limited by {@code budget}, keeping up to {@code recycleLimitBytes} of freed
   * memory mapped for reuse (0: every buffer is unmapped when freed). Pooled memory counts against the
   * budget, but is given up before the budget refuses an allocation.
   */
  public static EngineMemory create(MemoryBudget budget, long recycleLimitBytes) {
    return new EngineMemory(budget, recycleLimitBytes, OffHeapBuffer.SCOPE_CHECKS);
  }

  /** As {@link #create(MemoryBudget, long)}, with {@linkplain OffHeapBuffer#SCOPE_CHECKS scope checks} chosen. */
  static EngineMemory create(MemoryBudget budget, long recycleLimitBytes, boolean scopeChecks) {
    return new EngineMemory(budget, recycleLimitBytes, scopeChecks);
  }

  /**
   * Engine memory for one part of this memory's work (an operator's working memory, say) whose budget
   * is a {@linkplain MemoryBudget#child child} of this one's: what it allocates counts against both,
   * so it is held to {@code limitBytes} and this memory's limit at once, and its own
   * {@linkplain MemoryBudget#peakBytes() peak} tells how much that part needed. Before either budget
   * refuses an allocation, the freed memory both keep for reuse is given up. What the child keeps for
   * reuse goes to this memory's pool when it closes, and the child takes from this memory's pool what
   * its own lacks, so that one query's operators after another's reuse the same regions. The child is
   * closed by its creator, before this memory, and leak-checked like any other.
   */
  public EngineMemory child(String name, long limitBytes) {
    return child(name, limitBytes, Math.min(DEFAULT_RECYCLE_LIMIT_BYTES, limitBytes / 4));
  }

  /**
   * As {@link #child(String, long)}, keeping up to {@code recycleLimit} bytes of freed memory for
   * reuse (0: none, so that freed memory goes back to this memory's budget at once, for the others
   * sharing it).
   */
  public EngineMemory child(String name, long limitBytes, long recycleLimit) {
    MemoryBudget childBudget = budget.child(name, limitBytes);
    return new EngineMemory(childBudget, new BufferRecycler(childBudget, recycleLimit, recycler.scopeChecks(), recycler));
  }

  private static long defaultRecycleLimit() {
    long floor = 1L << 30;
    return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
        ? Math.max(floor, os.getTotalMemorySize() / 8) : floor;
  }

  /** Engine memory with an unbounded budget named {@code name}. */
  public static EngineMemory create(String name) {
    return create(MemoryBudget.unbounded(name));
  }

  /** The Arrow allocator: every buffer it hands out is an FFM segment charged to the budget. */
  public BufferAllocator arrow() {
    return arrow;
  }

  public MemoryBudget budget() {
    return budget;
  }

  /** A zeroed raw region of {@code bytes} with {@linkplain Placement#DEFAULT default} placement. */
  public OffHeapBuffer allocate(long bytes) {
    return allocate(bytes, Placement.DEFAULT);
  }

  /**
   * A zeroed raw region of {@code bytes}, charged to the budget until the caller closes it.
   *
   * @throws BudgetExceededException if the budget cannot cover it
   */
  public OffHeapBuffer allocate(long bytes, Placement placement) {
    return raw(bytes, placement, true);
  }

  /**
   * As {@link #allocate(long, Placement)}, but the contents are undefined: a reused region keeps what
   * its last owner wrote. For a caller that writes every byte before reading it, such as a growing
   * array that copies its old contents over the front and zeroes only the rest, which would otherwise
   * pay for zeroing the front first.
   *
   * @throws BudgetExceededException if the budget cannot cover it
   */
  public OffHeapBuffer allocateUninitialized(long bytes, Placement placement) {
    return raw(bytes, placement, false);
  }

  /** A raw region from the recycler, zeroed or not, tracked until its owner closes it. */
  private OffHeapBuffer raw(long bytes, Placement placement, boolean zeroed) {
    OffHeapBuffer buffer = OffHeapBuffer.recycled(recycler, bytes, placement, zeroed, rawBuffers::remove);
    rawBuffers.add(buffer);
    return buffer;
  }

  /**
   * Charges {@code bytes} of heap that an operator's structure holds and that grow with the data (a
   * sort's row references, say) to the budget, as if they were off-heap, so that the budget bounds
   * them too and a too-small budget refuses them by name before the heap runs out. Freed memory kept
   * for reuse is given up first, as for an allocation. The caller {@linkplain #releaseHeap releases}
   * them when the structure is dropped, on every path (a {@code finally} block).
   *
   * @throws BudgetExceededException if the budget cannot cover them; nothing is charged then
   */
  public void reserveHeap(long bytes) {
    recycler.reserve(bytes);
  }

  /** Returns {@code bytes} of heap {@linkplain #reserveHeap charged} before. */
  public void releaseHeap(long bytes) {
    budget.release(bytes);
  }

  /**
   * Bytes currently held by Arrow buffers and raw buffers together (at allocation granularity: a
   * recycled Arrow buffer counts its region's size class), and heap {@linkplain #reserveHeap charged}
   * to the budget; not the freed memory kept for reuse.
   */
  public long allocatedBytes() {
    return budget.reservedBytes() - recycler.pooledBytes();
  }

  /**
   * Bytes an allocation could take right now: what the budget (and its ancestors) have free, plus
   * the freed memory kept for reuse, which is given up before the budget refuses (a snapshot; other
   * allocations may take it first).
   */
  public long availableBytes() {
    long free = budget.availableBytes();
    return free > Long.MAX_VALUE - recycler.pooledBytes() ? Long.MAX_VALUE : free + recycler.pooledBytes();
  }

  /** Bytes of freed memory kept mapped for reuse, still charged to the budget. */
  public long recycledBytes() {
    return recycler.pooledBytes();
  }

  /**
   * Frees the memory kept for reuse here and in the open {@linkplain #child children} (operators' working
   * memories) and returns its charge to the budgets: for a host taking memory back (a growing budget can
   * only give back room no reservation holds), or leaving this memory idle for a while (regions idle
   * for long are otherwise freed only when a pool next takes one back). Returns the bytes freed. Any
   * thread.
   */
  public long trim() {
    return recycler.trimTree();
  }

  /**
   * Releases the Arrow allocator.
   *
   * @throws MemoryLeakException if any Arrow buffer or raw buffer is still live; raw buffers are
   *     freed regardless so one leak does not cascade into the next test, while leaked Arrow
   *     buffers keep the allocator open (their vectors may still be closed, then {@code close()}
   *     called again), since freeing memory under a live Arrow vector could crash the JVM
   */
  @Override
  public void close() {
    StringBuilder leaks = new StringBuilder();
    if (!rawBuffers.isEmpty()) {
      Set<OffHeapBuffer> leaked = Set.copyOf(rawBuffers);
      long bytes = 0;
      for (OffHeapBuffer buffer : leaked) {
        bytes += buffer.byteSize();
        buffer.close();
      }
      leaks.append(leaked.size()).append(" raw buffers (").append(bytes).append(" bytes) never closed");
    }
    long arrowBytes = arrow.getAllocatedMemory();
    int children = arrow.getChildAllocators().size();
    if (arrowBytes > 0 || children > 0) {
      // Closing Arrow's allocator now would strand these buffers for good (releasing them later
      // fails on a closed allocator); leave it open so their owner can still free them.
      if (!leaks.isEmpty()) {
        leaks.append("; ");
      }
      leaks.append(arrowBytes).append(" bytes of Arrow buffers still allocated (")
          .append(children).append(" open child allocators); the Arrow allocator stays open until "
              + "they are released and close() is called again");
    } else {
      try {
        arrow.close();
      } catch (IllegalStateException arrowLeak) {
        if (!leaks.isEmpty()) {
          leaks.append("; ");
        }
        leaks.append("Arrow allocator did not close (").append(firstLine(arrowLeak.getMessage())).append(')');
      }
    }
    recycler.close();
    if (!leaks.isEmpty()) {
      throw new MemoryLeakException("memory leak in '" + budget.name() + "': " + leaks);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no detail";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
