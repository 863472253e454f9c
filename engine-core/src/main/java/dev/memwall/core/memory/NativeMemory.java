package dev.memwall.core.memory;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Off-heap memory from the C library's allocator ({@code aligned_alloc} and {@code free} through FFM
 * downcalls), outside any {@link java.lang.foreign.Arena}: the memory behind {@link BufferRecycler}'s
 * regions.
 *
 * <p>Why not an arena: a region must be freeable on its own, which takes a shared arena per region,
 * and closing a shared arena is a handshake with every thread of the process. An operator that frees
 * thousands of regions while all its workers run (a partitioned aggregation releasing its partitions'
 * blocks) then spends most of its time in those handshakes, and more the more threads it runs on.
 * {@code free} costs what it costs a C program.
 *
 * <p>The segments have the global scope: nothing stops an access after {@link #free}, which may
 * crash the process or read another owner's data. Only {@link BufferRecycler} frees them, and it never
 * hands out a region's own segment: a buffer gets a slice, with an arena of its own under
 * {@linkplain OffHeapBuffer#SCOPE_CHECKS scope checks}, so that tests catch an access after close.
 *
 * <p>Where the C library cannot be linked (no such functions found), {@link #isSupported} is false and
 * callers use arenas instead. Thread safety: stateless, safe from any thread.
 */
final class NativeMemory {
  private static final MethodHandle ALIGNED_ALLOC;
  private static final MethodHandle FREE;

  static {
    MethodHandle alignedAlloc = null;
    MethodHandle free = null;
    try {
      Linker linker = Linker.nativeLinker();
      SymbolLookup libc = linker.defaultLookup();
      alignedAlloc = linker.downcallHandle(libc.find("aligned_alloc").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
      free = linker.downcallHandle(libc.find("free").orElseThrow(), FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
    } catch (RuntimeException | LinkageError e) {
      alignedAlloc = null;
      free = null;
    }
    ALIGNED_ALLOC = alignedAlloc;
    FREE = free;
  }

  private NativeMemory() {}

  /** Whether {@link #allocate} and {@link #free} are available on this platform. */
  static boolean isSupported() {
    return ALIGNED_ALLOC != null;
  }

  /**
   * {@code bytes} of zeroed memory aligned to {@code alignment} (a power of two, at least the size of a
   * pointer), to be given back with {@link #free}.
   *
   * @throws OutOfMemoryError if the C library refuses the allocation
   * @throws IllegalStateException if this platform has no such allocator ({@link #isSupported} false)
   */
  static MemorySegment allocate(long bytes, long alignment) {
    if (!isSupported()) {
      throw new IllegalStateException("no C library allocator to call on this platform");
    }
    long size = Math.max(alignment, (bytes + alignment - 1) & -alignment); // C11: a multiple of the alignment
    MemorySegment address;
    try {
      address = (MemorySegment) ALIGNED_ALLOC.invokeExact(alignment, size);
    } catch (Throwable e) {
      throw new IllegalStateException("aligned_alloc failed", e);
    }
    if (address.address() == 0) {
      throw new OutOfMemoryError("the C library refused " + size + " bytes of off-heap memory");
    }
    MemorySegment memory = address.reinterpret(bytes);
    memory.fill((byte) 0);
    return memory;
  }

  /** Frees memory from {@link #allocate}; any segment over it must not be used again. */
  static void free(MemorySegment memory) {
    try {
      FREE.invokeExact(memory);
    } catch (Throwable e) {
      throw new IllegalStateException("free failed", e);
    }
  }
}
