package dev.memwall.core.hw;

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
 * Whether this machine lets a process count hardware events (cycles, cache misses, TLB misses)
 * through Linux's {@code perf_event_open}: the question every counter-reading tool asks first, so
 * that where a hypervisor exposes no PMU (as on the development VMs) it can say so in one line and
 * fall back to time, instead of printing per-thread warnings or reporting zeros.
 *
 * <p>The probe opens, and at once closes, a disabled user-space cycle counter for the calling
 * thread through an FFM call of {@code syscall(SYS_perf_event_open, ...)}; nothing is counted.
 *
 * <p>Thread safety: the answer is computed once and shared.
 */
public final class HardwareCounters {
  /** The probe's answer: available, or not with the reason in one line. */
  public record Availability(boolean available, String detail) {
    /** One line for a user: {@code hardware counters: available} or {@code ... unavailable (why)}. */
    public String describe() {
      return "hardware counters: " + (available ? "available (" + detail + ")" : "unavailable (" + detail + ")");
    }
  }

  private static final int PERF_TYPE_HARDWARE = 0;
  private static final long PERF_COUNT_HW_CPU_CYCLES = 0;
  private static final long FLAG_DISABLED = 1L;
  private static final long FLAG_EXCLUDE_KERNEL = 1L << 5;
  private static final long FLAG_EXCLUDE_HV = 1L << 6;
  /** PERF_ATTR_SIZE_VER0: the oldest attribute layout every kernel accepts. */
  private static final StructLayout PERF_EVENT_ATTR = MemoryLayout.structLayout(
      ValueLayout.JAVA_INT.withName("type"),
      ValueLayout.JAVA_INT.withName("size"),
      ValueLayout.JAVA_LONG.withName("config"),
      ValueLayout.JAVA_LONG.withName("sample_period"),
      ValueLayout.JAVA_LONG.withName("sample_type"),
      ValueLayout.JAVA_LONG.withName("read_format"),
      ValueLayout.JAVA_LONG.withName("flags"),
      ValueLayout.JAVA_INT.withName("wakeup_events"),
      ValueLayout.JAVA_INT.withName("bp_type"),
      ValueLayout.JAVA_LONG.withName("config1"));
  private static final VarHandle TYPE = PERF_EVENT_ATTR.varHandle(MemoryLayout.PathElement.groupElement("type"));
  private static final VarHandle SIZE = PERF_EVENT_ATTR.varHandle(MemoryLayout.PathElement.groupElement("size"));
  private static final VarHandle CONFIG = PERF_EVENT_ATTR.varHandle(MemoryLayout.PathElement.groupElement("config"));
  private static final VarHandle FLAGS = PERF_EVENT_ATTR.varHandle(MemoryLayout.PathElement.groupElement("flags"));

  private static final Availability AVAILABILITY = probe();

  private HardwareCounters() {}

  /** Whether hardware events can be counted here, probed once per process. */
  public static Availability availability() {
    return AVAILABILITY;
  }

  private static Availability probe() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return new Availability(false, "perf_event_open is Linux only");
    }
    long syscallNumber = switch (System.getProperty("os.arch", "")) {
      case "amd64", "x86_64" -> 298;
      case "aarch64" -> 241;
      default -> -1;
    };
    if (syscallNumber < 0) {
      return new Availability(false, "perf_event_open's number is unknown on " + System.getProperty("os.arch"));
    }
    try (Arena arena = Arena.ofConfined()) {
      Linker linker = Linker.nativeLinker();
      StructLayout callState = Linker.Option.captureStateLayout();
      MethodHandle syscall = linker.downcallHandle(linker.defaultLookup().find("syscall").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
              ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
          Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
      MethodHandle close = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
      MemorySegment attr = arena.allocate(PERF_EVENT_ATTR);
      TYPE.set(attr, 0L, PERF_TYPE_HARDWARE);
      SIZE.set(attr, 0L, (int) PERF_EVENT_ATTR.byteSize());
      CONFIG.set(attr, 0L, PERF_COUNT_HW_CPU_CYCLES);
      FLAGS.set(attr, 0L, FLAG_DISABLED | FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV);
      MemorySegment state = arena.allocate(callState);
      // pid 0 = this thread, cpu -1 = any, no group, no flags
      long fd = (long) syscall.invokeExact(state, syscallNumber, attr, 0L, -1L, -1L, 0L);
      if (fd < 0) {
        int errno = (int) callState.varHandle(MemoryLayout.PathElement.groupElement("errno"))
            .get(state, 0L);
        return new Availability(false, "perf_event_open for CPU cycles failed with errno " + errno + explain(errno));
      }
      int ignored = (int) close.invokeExact((int) fd);
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
