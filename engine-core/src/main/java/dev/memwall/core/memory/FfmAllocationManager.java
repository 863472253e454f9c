package dev.memwall.core.memory;

import java.lang.foreign.MemorySegment;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * An Arrow {@link AllocationManager} whose memory is an {@link OffHeapBuffer}: every Arrow buffer
 * the engine allocates is a {@link MemorySegment} owned by an FFM arena and charged to a
 * {@link MemoryBudget}. Arrow's reference counting decides when {@link #release0} runs; that
 * ends the buffer's scope and returns its region to the {@link BufferRecycler} (or frees it and
 * returns the bytes to the budget).
 *
 * <p>Buffers of at least one huge page are placed on transparent huge pages where available.
 */
public final class FfmAllocationManager extends AllocationManager {
  private final OffHeapBuffer buffer;

  private FfmAllocationManager(BufferAllocator accountingAllocator, OffHeapBuffer buffer) {
    super(accountingAllocator);
    this.buffer = buffer;
  }

  /** A factory taking every allocation from {@code recycler}, charged to its budget. */
  static Factory factory(BufferRecycler recycler) {
    return new Factory() {
      @Override
      public AllocationManager create(BufferAllocator accountingAllocator, long size) {
        return new FfmAllocationManager(accountingAllocator,
            OffHeapBuffer.recycled(recycler, size, Placement.HUGE_PAGES, false, b -> {}));
      }

      @Override
      public ArrowBuf empty() {
        return EmptyBuffers.EMPTY;
      }
    };
  }

  /** The memory behind every Arrow buffer of this allocation. */
  public MemorySegment segment() {
    return buffer.segment();
  }

  @Override
  public long getSize() {
    return buffer.byteSize();
  }

  @Override
  protected long memoryAddress() {
    return buffer.segment().address();
  }

  @Override
  protected void release0() {
    buffer.close();
  }

  /** Arrow's shared zero-length buffer, not backed by any allocation. */
  private static final class EmptyBuffers {
    static final ArrowBuf EMPTY = new ArrowBuf(org.apache.arrow.memory.ReferenceManager.NO_OP,
        null, 0, MemorySegment.NULL.address());
  }
}
