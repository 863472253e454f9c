package dev.memwall.hw;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A hardware event memwall counts, under the name {@code perf list} gives it, with its
 * {@code perf_event_open} encoding: the generic {@code PERF_TYPE_HARDWARE} events, and
 * {@code PERF_TYPE_HW_CACHE} events whose config is {@code cache | (op << 8) | (result << 16)}.
 *
 * <p>What a generic event measures is the kernel's mapping for the CPU, and it differs by vendor:
 * {@link #CACHE_MISSES} is last-level-cache misses on Intel but L2 misses (data and instruction)
 * on AMD Zen, where {@link #LLC_LOAD_MISSES} does not exist (the kernel answers ENOENT); see
 * {@link StallBreakdown} for how the levels are read.
 */
public enum HwEvent {
  /** Core clock cycles while the thread runs. */
  CYCLES("cycles", PerfEventAttr.PERF_TYPE_HARDWARE, PerfEventAttr.PERF_COUNT_HW_CPU_CYCLES),
  /** Retired instructions. */
  INSTRUCTIONS("instructions", PerfEventAttr.PERF_TYPE_HARDWARE, PerfEventAttr.PERF_COUNT_HW_INSTRUCTIONS),
  /** Accesses to the level the vendor calls "cache": LLC references on Intel (about its L2 misses), L2 requests on AMD. */
  CACHE_REFERENCES("cache-references", PerfEventAttr.PERF_TYPE_HARDWARE,
      PerfEventAttr.PERF_COUNT_HW_CACHE_REFERENCES),
  /** Misses of that level: LLC misses on Intel, L2 misses on AMD Zen. */
  CACHE_MISSES("cache-misses", PerfEventAttr.PERF_TYPE_HARDWARE, PerfEventAttr.PERF_COUNT_HW_CACHE_MISSES),
  /** Last-level-cache read misses (demand loads); not offered on AMD Zen. */
  LLC_LOAD_MISSES("LLC-load-misses", PerfEventAttr.PERF_TYPE_HW_CACHE, PerfEventAttr.cacheConfig(
      PerfEventAttr.PERF_COUNT_HW_CACHE_LL, PerfEventAttr.PERF_COUNT_HW_CACHE_OP_READ,
      PerfEventAttr.PERF_COUNT_HW_CACHE_RESULT_MISS)),
  /** L1 data-cache read misses. */
  L1_DCACHE_LOAD_MISSES("L1-dcache-load-misses", PerfEventAttr.PERF_TYPE_HW_CACHE, PerfEventAttr.cacheConfig(
      PerfEventAttr.PERF_COUNT_HW_CACHE_L1D, PerfEventAttr.PERF_COUNT_HW_CACHE_OP_READ,
      PerfEventAttr.PERF_COUNT_HW_CACHE_RESULT_MISS)),
  /** Data-TLB read misses (on most CPUs: misses of the last TLB level, i.e. page walks). */
  DTLB_LOAD_MISSES("dTLB-load-misses", PerfEventAttr.PERF_TYPE_HW_CACHE, PerfEventAttr.cacheConfig(
      PerfEventAttr.PERF_COUNT_HW_CACHE_DTLB, PerfEventAttr.PERF_COUNT_HW_CACHE_OP_READ,
      PerfEventAttr.PERF_COUNT_HW_CACHE_RESULT_MISS)),
  /** Mispredicted branches (retired). */
  BRANCH_MISSES("branch-misses", PerfEventAttr.PERF_TYPE_HARDWARE, PerfEventAttr.PERF_COUNT_HW_BRANCH_MISSES);

  private final String perfName;
  private final int type;
  private final long config;

  HwEvent(String perfName, int type, long config) {
    this.perfName = perfName;
    this.type = type;
    this.config = config;
  }

  /** The name as {@code perf list} spells it, e.g. {@code LLC-load-misses}. */
  public String perfName() {
    return perfName;
  }

  /** {@code perf_event_attr.type}. */
  int type() {
    return type;
  }

  /** {@code perf_event_attr.config}. */
  long config() {
    return config;
  }

  /** Every event, in declaration order. */
  public static Set<HwEvent> all() {
    return EnumSet.allOf(HwEvent.class);
  }

  /**
   * The event {@code perf} names {@code name} (ignoring case and surrounding blanks, as perf does
   * for these names).
   *
   * @throws IllegalArgumentException for an unknown name, listing the valid ones
   * @throws NullPointerException for null
   */
  public static HwEvent parse(String name) {
    Objects.requireNonNull(name, "event name");
    String wanted = name.strip().toLowerCase(Locale.ROOT);
    for (HwEvent event : values()) {
      if (event.perfName.toLowerCase(Locale.ROOT).equals(wanted)) {
        return event;
      }
    }
    throw new IllegalArgumentException("unknown hardware event '" + name + "'; valid names: " + validNames());
  }

  /**
   * The events of a comma-separated list like {@code perf stat -e}'s, e.g.
   * {@code "cycles,instructions,LLC-load-misses"}; duplicates count once.
   *
   * @throws IllegalArgumentException for an empty list, an empty entry or an unknown name
   */
  public static Set<HwEvent> parseList(String names) {
    Objects.requireNonNull(names, "event list");
    if (names.isBlank()) {
      throw new IllegalArgumentException("empty event list; valid names: " + validNames());
    }
    Set<HwEvent> events = EnumSet.noneOf(HwEvent.class);
    for (String name : names.split(",", -1)) {
      if (name.isBlank()) {
        throw new IllegalArgumentException("empty entry in event list '" + names + "'; valid names: " + validNames());
      }
      events.add(parse(name));
    }
    return events;
  }

  private static String validNames() {
    return Arrays.stream(values()).map(HwEvent::perfName).collect(Collectors.joining(", "));
  }
}
