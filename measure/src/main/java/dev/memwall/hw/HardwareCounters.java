package dev.memwall.hw;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Whether this machine lets a process count hardware events (cycles, cache misses, TLB misses)
 * through Linux's {@code perf_event_open}: the question every counter-reading tool asks first, so
 * that where a hypervisor exposes no PMU (as on the development VMs) it can say so in one line and
 * fall back to time, instead of printing per-thread warnings or reporting zeros; and
 * {@link #count(Set, Runnable)}, the shortest way to count a region of code.
 *
 * <p>The probe opens, and at once closes, a disabled user-space cycle counter for the calling
 * thread through an FFM call of {@code syscall(SYS_perf_event_open, ...)}; nothing is counted.
 *
 * <p>Thread safety: the answer is computed once and shared; {@link #count} counts the calling
 * thread only (see {@link EventCounter}).
 */
public final class HardwareCounters {
  /** The probe's answer: available, or not with the reason in one line. */
  public record Availability(boolean available, String detail) {
    /** One line for a user: {@code hardware counters: available} or {@code ... unavailable (why)}. */
    public String describe() {
      return "hardware counters: " + (available ? "available (" + detail + ")" : "unavailable (" + detail + ")");
    }
  }

  private static final Path PARANOID = Path.of("/proc/sys/kernel/perf_event_paranoid");
  private static final Availability AVAILABILITY = probe();

  private HardwareCounters() {}

  /** Whether hardware events can be counted here, probed once per process. */
  public static Availability availability() {
    return AVAILABILITY;
  }

  /**
   * Counts {@code events} while the calling thread runs {@code region} (exactly once, whether or
   * not counters exist) and returns the reading: {@link CounterReading.Unavailable} with the
   * reason where nothing could be counted, never zeros.
   *
   * @throws IllegalArgumentException when {@code events} is empty
   * @throws NullPointerException for null arguments
   */
  public static CounterReading count(Set<HwEvent> events, Runnable region) {
    Objects.requireNonNull(region, "region");
    try (EventCounter counter = EventCounter.open(events)) {
      CountingRegion counting = counter.start();
      try (counting) {
        region.run();
      }
      return counting.reading();
    }
  }

  /**
   * {@code /proc/sys/kernel/perf_event_paranoid}: 2 or more lets unprivileged users count user
   * space only, 1 also the kernel, 0 and -1 more; empty where unreadable.
   */
  static OptionalInt perfEventParanoid() {
    try {
      return OptionalInt.of(Integer.parseInt(Files.readString(PARANOID).strip()));
    } catch (IOException | RuntimeException unreadable) {
      return OptionalInt.empty();
    }
  }

  /** Whether counters must exclude the kernel: paranoid level 2 or more, or unknown. */
  static boolean userSpaceOnly() {
    OptionalInt level = perfEventParanoid();
    return level.isEmpty() || level.getAsInt() >= 2;
  }

  private static Availability probe() {
    String unsupported = LinuxPerfSyscalls.unsupportedReason();
    if (unsupported != null) {
      return new Availability(false, unsupported);
    }
    try (Arena arena = Arena.ofConfined()) {
      PerfSyscalls sys = new LinuxPerfSyscalls(arena);
      MemorySegment attr = arena.allocate(PerfEventAttr.LAYOUT);
      PerfEventAttr.write(attr, PerfEventAttr.PERF_TYPE_HARDWARE, PerfEventAttr.PERF_COUNT_HW_CPU_CYCLES,
          PerfEventAttr.FLAG_DISABLED | PerfEventAttr.FLAG_EXCLUDE_KERNEL | PerfEventAttr.FLAG_EXCLUDE_HV);
      int fd = sys.open(attr, -1);
      if (fd < 0) {
        int errno = -fd;
        return new Availability(false, "perf_event_open for CPU cycles failed with errno " + errno + explain(errno));
      }
      sys.close(fd);
      return new Availability(true, "perf_event_open for CPU cycles succeeded");
    } catch (Throwable e) {
      return new Availability(false, "perf_event_open could not be called: " + e);
    }
  }

  private static String explain(int errno) {
    return switch (errno) {
      case 2 -> " (ENOENT: no hardware PMU is exposed, as in most VMs)";
      case 1, 13 -> " (EPERM/EACCES: see /proc/sys/kernel/perf_event_paranoid)";
      case 95 -> " (EOPNOTSUPP: the event is not supported here)";
      case 38 -> " (ENOSYS: the kernel has no perf events)";
      default -> "";
    };
  }
}
