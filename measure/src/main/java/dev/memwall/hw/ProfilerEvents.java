package dev.memwall.hw;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The events {@code --profile EVENT} accepts ({@code ./memwall bench} and {@code ./memwall tpch}),
 * and what to ask async-profiler for on this machine. async-profiler's sampling modes ({@code cpu}, {@code wall}, {@code itimer},
 * {@code ctimer}, {@code alloc}, {@code lock}, {@code nativemem}) and perf software events
 * ({@code cpu-clock}, {@code page-faults}, {@code context-switches}) are passed on as they are.
 * Hardware events (cycles, cache and TLB misses, branches; raw PMU events {@code rNNNN}) need
 * hardware counters: where {@link HardwareCounters#availability()} says there are none (most VMs),
 * the plan falls back to {@code cpu} (CPU-time sampling) and says so in one line, because
 * async-profiler asked for a hardware event there prints a warning per thread and then fails. The
 * flame graphs are named after the event actually sampled, so nothing pretends to have counted.
 *
 * <p>Bad input: an event not listed here gets an {@link IllegalArgumentException} whose one-line
 * message lists the valid events. Stateless and thread-safe.
 */
public final class ProfilerEvents {
  /** async-profiler's own sampling modes. */
  public static final List<String> MODES = List.of("cpu", "wall", "itimer", "ctimer", "alloc", "lock", "nativemem");
  /** perf software events: no PMU needed. */
  public static final List<String> SOFTWARE = List.of("cpu-clock", "page-faults", "context-switches");
  /** perf hardware and cache events: need hardware counters. */
  public static final List<String> HARDWARE = List.of("cycles", "instructions", "ref-cycles",
      "stalled-cycles-frontend", "stalled-cycles-backend", "cache-references", "cache-misses", "branch-instructions",
      "branch-misses", "bus-cycles", "L1-dcache-load-misses", "LLC-load-misses", "dTLB-load-misses");
  /** The event sampled instead of a hardware event when there are no hardware counters. */
  public static final String FALLBACK = "cpu";
  private static final Pattern RAW_PMU_EVENT = Pattern.compile("r[0-9a-fA-F]{1,16}");

  /**
   * What to profile.
   *
   * @param requested the event the user named
   * @param event the event to ask async-profiler for
   * @param notice the one line to show the user when {@code event} differs from {@code requested}
   */
  public record Plan(String requested, String event, Optional<String> notice) {}

  private ProfilerEvents() {}

  /**
   * The plan for {@code requested} given whether hardware counters are available.
   *
   * @throws IllegalArgumentException if {@code requested} is not a known event
   */
  public static Plan plan(String requested, HardwareCounters.Availability counters) {
    String event = requested.strip();
    if (MODES.contains(event) || SOFTWARE.contains(event)) {
      return new Plan(requested, event, Optional.empty());
    }
    if (!isHardware(event)) {
      throw new IllegalArgumentException("unknown profiling event '" + requested + "'; valid events: "
          + String.join(", ", MODES) + "; perf software events: " + String.join(", ", SOFTWARE)
          + "; hardware events: " + String.join(", ", HARDWARE) + ", rNNNN (raw PMU event)");
    }
    if (counters.available()) {
      return new Plan(requested, event, Optional.empty());
    }
    return new Plan(requested, FALLBACK, Optional.of("--profile " + event + " needs hardware counters, which this "
        + "machine lacks (" + counters.detail() + "); sampling CPU time instead (event=" + FALLBACK
        + "): the flame graphs show where time goes, not " + event));
  }

  /** Whether {@code event} is a hardware event (listed, or a raw PMU event). */
  public static boolean isHardware(String event) {
    return HARDWARE.contains(event) || RAW_PMU_EVENT.matcher(event).matches();
  }
}
