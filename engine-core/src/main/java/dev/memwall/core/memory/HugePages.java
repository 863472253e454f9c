package dev.memwall.core.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Anonymous memory backed by transparent huge pages: {@code mmap} followed by
 * {@code madvise(MADV_HUGEPAGE)}, both through FFM downcalls.
 *
 * <p>Huge pages cut TLB misses for large random-access structures (partitions, hash tables,
 * trees): one 2 MiB entry covers what 512 entries of 4 KiB would. Where the platform offers no
 * {@code mmap}/{@code madvise} (not Linux, or the call fails), {@link #map} returns empty and the
 * caller falls back to an ordinary arena allocation; the advice itself is only a hint the kernel
 * may ignore.
 *
 * <p>Thread safety: stateless, safe from any thread.
 */
public final class HugePages {
  /** The huge page size this class aligns mappings to (x86-64 and aarch64 default). */
  public static final long HUGE_PAGE_BYTES = 2L << 20;

  private static final int PROT_READ_WRITE = 0x1 | 0x2;
  private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
  private static final int MADV_HUGEPAGE = 14;
  private static final long MAP_FAILED = -1L;

  private static final MethodHandle MMAP;
  private static final MethodHandle MADVISE;
  private static final MethodHandle MUNMAP;
  private static final MethodHandle GETPAGESIZE;

  static {
    MethodHandle mmap = null;
    MethodHandle madvise = null;
    MethodHandle munmap = null;
    MethodHandle getpagesize = null;
    if (System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      try {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        mmap = linker.downcallHandle(libc.find("mmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
        madvise = linker.downcallHandle(libc.find("madvise").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT));
        munmap = linker.downcallHandle(libc.find("munmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        getpagesize = linker.downcallHandle(libc.find("getpagesize").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT));
      } catch (RuntimeException | LinkageError e) {
        mmap = null;
      }
    }
    MMAP = mmap;
    MADVISE = madvise;
    MUNMAP = munmap;
    GETPAGESIZE = getpagesize;
  }

  /** The base page size the kernel uses (getpagesize()); 4096 where it cannot be asked. */
  public static long basePageBytes() {
    if (GETPAGESIZE != null) {
      try {
        return (int) GETPAGESIZE.invokeExact();
      } catch (Throwable e) {
        // fall back below
      }
    }
    return 4096;
  }

  private HugePages() {}

  /** Whether this platform offers the {@code mmap}/{@code madvise} calls at all. */
  public static boolean isSupported() {
    return MMAP != null;
  }

  /**
   * Maps {@code bytes} (rounded up to whole huge pages) of zeroed anonymous memory advised for
   * huge pages; the mapping is unmapped when {@code arena} closes.
   *
   * @return the mapping, sliced to {@code bytes}; empty where huge pages are unsupported or the
   *     mapping failed (the caller should then allocate from the arena instead)
   */
  public static Optional<MemorySegment> map(long bytes, Arena arena) {
    MemorySegment mapping = map(bytes);
    return mapping == null ? Optional.empty()
        : Optional.of(mapping.reinterpret(arena, HugePages::unmap).asSlice(0, bytes));
  }

  /**
   * As {@link #map(long, Arena)}, but outside any arena: the whole mapping (whole huge pages), to be
   * given back with {@link #unmap} and not used after that; or null. A scope would cost a shared
   * arena's close, a handshake with every thread, when the mapping is given back (see
   * {@link NativeMemory}).
   */
  static MemorySegment map(long bytes) {
    if (MMAP == null || bytes <= 0) {
      return null;
    }
    long length = (bytes + HUGE_PAGE_BYTES - 1) & -HUGE_PAGE_BYTES;
    try {
      MemorySegment address = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, length,
          PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
      if (address.address() == MAP_FAILED) {
        return null;
      }
      int ignoredAdvice = (int) MADVISE.invokeExact(address, length, MADV_HUGEPAGE);
      return address.reinterpret(length);
    } catch (Throwable e) {
      return null;
    }
  }

  /** Unmaps a mapping of {@link #map(long)}, given whole or as a slice from its start. */
  static void unmap(MemorySegment mapping) {
    long length = (mapping.byteSize() + HUGE_PAGE_BYTES - 1) & -HUGE_PAGE_BYTES;
    try {
      int ignoredResult = (int) MUNMAP.invokeExact(mapping, length);
    } catch (Throwable e) {
      throw new IllegalStateException("munmap failed for a huge-page mapping", e);
    }
  }
}
