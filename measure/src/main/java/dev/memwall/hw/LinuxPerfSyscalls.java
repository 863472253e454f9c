package dev.memwall.hw;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * {@link PerfSyscalls} through FFM downcalls into the C library: {@code syscall(SYS_perf_event_open,
 * ...)} (glibc has no wrapper), {@code ioctl}, {@code read} and {@code close}, each capturing
 * {@code errno}.
 *
 * <p>Ownership and thread safety: the errno capture buffer is allocated in the arena given to the
 * constructor, so an instance lives as long as that arena and is confined like it.
 */
final class LinuxPerfSyscalls implements PerfSyscalls {
  private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final long SYS_PERF_EVENT_OPEN = syscallNumber();
  private static final MethodHandle SYSCALL;
  private static final MethodHandle IOCTL;
  private static final MethodHandle READ;
  private static final MethodHandle CLOSE;

  static {
    if (SYS_PERF_EVENT_OPEN < 0) {
      SYSCALL = IOCTL = READ = CLOSE = null;
    } else {
      Linker linker = Linker.nativeLinker();
      Linker.Option errno = Linker.Option.captureCallState("errno");
      // long syscall(long number, ...): the five arguments pass as variadic longs/pointers
      SYSCALL = linker.downcallHandle(linker.defaultLookup().find("syscall").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
              ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
          Linker.Option.firstVariadicArg(1), errno);
      // int ioctl(int fd, unsigned long request, ...)
      IOCTL = linker.downcallHandle(linker.defaultLookup().find("ioctl").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
              ValueLayout.JAVA_LONG),
          Linker.Option.firstVariadicArg(2), errno);
      // ssize_t read(int fd, void *buf, size_t count)
      READ = linker.downcallHandle(linker.defaultLookup().find("read").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
              ValueLayout.JAVA_LONG),
          errno);
      CLOSE = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }
  }

  private final MemorySegment state;

  /**
   * @throws UnsupportedOperationException where perf_event_open's system call number is unknown
   *     (not Linux on x86-64 or aarch64)
   */
  LinuxPerfSyscalls(Arena arena) {
    if (SYS_PERF_EVENT_OPEN < 0) {
      throw new UnsupportedOperationException(unsupportedReason());
    }
    this.state = arena.allocate(CALL_STATE);
  }

  /** Why this platform has no perf_event_open, or null where it has one. */
  static String unsupportedReason() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return "perf_event_open is Linux only";
    }
    return SYS_PERF_EVENT_OPEN < 0 ? "perf_event_open's number is unknown on " + System.getProperty("os.arch") : null;
  }

  @Override
  public int open(MemorySegment attr, int groupFd) {
    try {
      long fd = (long) SYSCALL.invokeExact(state, SYS_PERF_EVENT_OPEN, attr, 0L, -1L, (long) groupFd,
          PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
      return fd < 0 ? -errno() : (int) fd;
    } catch (Throwable e) {
      throw new IllegalStateException("perf_event_open could not be called", e);
    }
  }

  @Override
  public int ioctl(int fd, long request, long arg) {
    try {
      int result = (int) IOCTL.invokeExact(state, fd, request, arg);
      return result < 0 ? -errno() : result;
    } catch (Throwable e) {
      throw new IllegalStateException("ioctl could not be called", e);
    }
  }

  @Override
  public long read(int fd, MemorySegment buffer) {
    try {
      long bytes = (long) READ.invokeExact(state, fd, buffer, buffer.byteSize());
      return bytes < 0 ? -errno() : bytes;
    } catch (Throwable e) {
      throw new IllegalStateException("read could not be called", e);
    }
  }

  @Override
  public void close(int fd) {
    try {
      int ignored = (int) CLOSE.invokeExact(fd);
    } catch (Throwable e) {
      throw new IllegalStateException("close could not be called", e);
    }
  }

  private int errno() {
    return (int) ERRNO.get(state, 0L);
  }

  private static long syscallNumber() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return -1;
    }
    return switch (System.getProperty("os.arch", "")) {
      case "amd64", "x86_64" -> 298;
      case "aarch64" -> 241;
      default -> -1;
    };
  }
}
