package dev.memwall.core.memory;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferLedger;

/**
 * Finds the {@link MemorySegment} behind an Arrow buffer, so kernels read Arrow data through
 * bounds-checked segment accesses rather than raw addresses.
 *
 * <p>Resolution order: (1) buffers allocated through {@link FfmAllocationManager} become a slice of
 * their owning segment, so reading after the buffer is freed fails cleanly; (2) buffers inside a
 * {@linkplain #register registered} foreign region (a memory-mapped Arrow file) become a slice of
 * that region, with the same guarantee; (3) any other buffer (a caller's own Arrow batches from
 * another allocator) is wrapped by address with its capacity as bounds: accesses stay
 * bounds-checked, but keeping that buffer alive while the segment is used is then the caller's
 * responsibility.
 *
 * <p>Thread safety: safe from any thread.
 */
public final class ArrowSegments {
  private static final ConcurrentSkipListMap<Long, MemorySegment> FOREIGN_REGIONS =
      new ConcurrentSkipListMap<>();

  private ArrowSegments() {}

  /** The memory of {@code buf}, {@code buf.capacity()} bytes long. */
  public static MemorySegment of(ArrowBuf buf) {
    long capacity = buf.capacity();
    if (capacity == 0) {
      return MemorySegment.NULL;
    }
    long address = buf.memoryAddress();
    if (buf.getReferenceManager() instanceof BufferLedger ledger
        && ledger.getAllocationManager() instanceof FfmAllocationManager ffm) {
      MemorySegment owner = ffm.segment();
      return owner.asSlice(address - owner.address(), capacity);
    }
    Map.Entry<Long, MemorySegment> region = FOREIGN_REGIONS.floorEntry(address);
    if (region != null) {
      MemorySegment owner = region.getValue();
      long offset = address - owner.address();
      if (offset + capacity <= owner.byteSize()) {
        return owner.asSlice(offset, capacity);
      }
    }
    return MemorySegment.ofAddress(address).reinterpret(capacity);
  }

  /** Makes buffers inside {@code region} resolve to slices of it until {@link #unregister}. */
  public static void register(MemorySegment region) {
    FOREIGN_REGIONS.put(region.address(), region);
  }

  /** Undoes {@link #register}. */
  public static void unregister(MemorySegment region) {
    FOREIGN_REGIONS.remove(region.address(), region);
  }
}
