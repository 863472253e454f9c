package dev.memwall.hw;

import java.lang.foreign.MemorySegment;

/**
 * The four system calls a counter needs, in the kernel's convention: a result {@code >= 0}, or
 * {@code -errno}. {@link LinuxPerfSyscalls} makes them through FFM; tests substitute a PMU that
 * lacks some events, to check the logic above the calls on machines without counters.
 */
interface PerfSyscalls {
  /**
   * {@code perf_event_open(attr, pid 0 (this thread), cpu -1 (any), groupFd, PERF_FLAG_FD_CLOEXEC)}.
   *
   * @param groupFd -1 for a new group (the event is its leader), else the leader's descriptor
   */
  int open(MemorySegment attr, int groupFd);

  /** {@code ioctl(fd, request, arg)}. */
  int ioctl(int fd, long request, long arg);

  /** {@code read(fd, buffer, buffer.byteSize())}: the bytes read. */
  long read(int fd, MemorySegment buffer);

  /** {@code close(fd)}; a failure is ignored, as there is nothing to do about it. */
  void close(int fd);

  /** Short errno names for messages. */
  static String errnoName(int errno) {
    return switch (errno) {
      case 1 -> "EPERM";
      case 2 -> "ENOENT";
      case 9 -> "EBADF";
      case 13 -> "EACCES";
      case 14 -> "EFAULT";
      case 16 -> "EBUSY";
      case 19 -> "ENODEV";
      case 22 -> "EINVAL";
      case 24 -> "EMFILE";
      case 28 -> "ENOSPC";
      case 7 -> "E2BIG";
      case 38 -> "ENOSYS";
      case 95 -> "EOPNOTSUPP";
      default -> "errno " + errno;
    };
  }
}
