package dev.memwall.hw;

import dev.memwall.core.machine.MachineProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Seed 003's breakdown of a region's time (Liu et al. 2008, eq. 1-2, after Ailamaki et al.):
 * {@code T_Q = T_C + T_M + T_B + T_R - T_OVL}, where each stall term is an event count times a
 * penalty the calibrator measured ({@link MachineProfile}), never a hard-coded cycle count.
 *
 * <p><b>Levels.</b> The misses are split into disjoint classes, each charged the latency of the
 * level that served it, so an access to memory is charged T1 once (the paper's tables charge each
 * level's count its own penalty, which counts a memory access at every level on the way):
 * <ul>
 *   <li>L1D misses served by L2: (L1 misses - L2 misses) x the L2 hit latency;
 *   <li>L2 misses served by the LLC: (L2 misses - LLC misses) x the LLC hit latency;
 *   <li>LLC misses served by memory: LLC misses x T1 ({@link MachineProfile#missLatencyNanos()});
 *   <li>DTLB misses x {@link MachineProfile.Tlb#missNanos()};
 *   <li>branch misses x {@link MachineProfile#branchMissNanos()} ({@code T_B}).
 * </ul>
 *
 * <p><b>Which counter is which level.</b> L1 misses are {@code L1-dcache-load-misses}. Linux has
 * no generic L2-miss event; the generic cache events mean different things per vendor (the
 * kernel's tables in arch/x86/events): on AMD Zen {@code cache-misses} counts L2 misses (data and
 * instruction) and {@code LLC-load-misses} does not exist; on Intel {@code cache-misses} counts LLC
 * misses and {@code cache-references} LLC references, which are about the L2 misses. The vendor
 * is read from the profile's CPU name. Where a level's count is missing, its accesses stay in the
 * class above and are charged that class's (smaller) latency: the term is then marked a lower
 * bound. Where the profile has no third level, L2 is the last level.
 *
 * <p><b>What is not measured.</b> {@code T_C + T_R - T_OVL} is the residual of the measured time
 * (wall clock of the region) after the stall terms: compute plus resource stalls minus overlap.
 * Charging every miss its full dependent latency ignores memory-level parallelism, so on code whose
 * misses overlap the stall terms can exceed the measured time and the residual goes negative: that
 * is the overlap, shown as such.
 *
 * @param totalNanos T_Q: the region's measured wall time
 * @param stalls the stall terms that could be computed, in the order above
 * @param notes what could not be computed and why, and the approximations made
 */
public record StallBreakdown(long totalNanos, List<Stall> stalls, List<String> notes) {

  public StallBreakdown {
    stalls = List.copyOf(stalls);
    notes = List.copyOf(notes);
  }

  /** What a stall term charges. */
  public enum Component {
    L2_HIT("L1D miss served by L2", true),
    LLC_HIT("L2 miss served by LLC", true),
    MEMORY("LLC miss served by memory", true),
    DTLB("DTLB miss", true),
    BRANCH("branch miss", false);

    private final String label;
    private final boolean memory;

    Component(String label, boolean memory) {
      this.label = label;
      this.memory = memory;
    }

    /** A short name for tables. */
    public String label() {
      return label;
    }

    /** Whether it belongs to T_M (memory hierarchy) rather than T_B. */
    public boolean isMemory() {
      return memory;
    }
  }

  /**
   * One stall term: {@code events x penaltyNanos}.
   *
   * @param counters the counters the events were derived from
   * @param lowerBound whether some of the events belong to a slower level that could not be
   *     separated, so the term underestimates
   */
  public record Stall(Component component, String counters, long events, double penaltyNanos, boolean lowerBound) {
    /** The term's time. */
    public double nanos() {
      return events * penaltyNanos;
    }
  }

  /** The CPU vendor, whose kernel mapping decides what the generic cache events count. */
  enum Vendor {
    INTEL, AMD, OTHER;

    static Vendor of(String cpuName) {
      String name = cpuName.toLowerCase(Locale.ROOT);
      if (name.contains("intel")) {
        return INTEL;
      }
      return name.matches(".*\\bamd\\b.*") ? AMD : OTHER;
    }
  }

  /** T_M: the memory-hierarchy stall terms (caches and TLB). */
  public double memoryStallNanos() {
    return stalls.stream().filter(s -> s.component().isMemory()).mapToDouble(Stall::nanos).sum();
  }

  /** T_B: the branch-misprediction term (0 where it could not be computed; see the notes). */
  public double branchStallNanos() {
    return stalls.stream().filter(s -> !s.component().isMemory()).mapToDouble(Stall::nanos).sum();
  }

  /** T_C + T_R - T_OVL: what the stall terms leave of the measured time; negative when misses overlapped. */
  public double residualNanos() {
    return totalNanos - memoryStallNanos() - branchStallNanos();
  }

  /**
   * The breakdown of {@code reading} with the penalties of {@code profile} (which must describe
   * the machine that counted).
   */
  public static StallBreakdown of(CounterReading.Available reading, MachineProfile profile) {
    Objects.requireNonNull(reading, "reading");
    Objects.requireNonNull(profile, "profile");
    Vendor vendor = Vendor.of(profile.cpu());
    List<Stall> stalls = new ArrayList<>();
    List<String> notes = new ArrayList<>();

    OptionalLong l1 = reading.count(HwEvent.L1_DCACHE_LOAD_MISSES);
    String l1Source = HwEvent.L1_DCACHE_LOAD_MISSES.perfName();
    OptionalLong l2 = OptionalLong.empty();
    String l2Source = null;
    if (vendor == Vendor.AMD && reading.count(HwEvent.CACHE_MISSES).isPresent()) {
      l2 = reading.count(HwEvent.CACHE_MISSES);
      l2Source = "cache-misses (AMD: L2 misses)";
    } else if (vendor == Vendor.INTEL && reading.count(HwEvent.CACHE_REFERENCES).isPresent()) {
      l2 = reading.count(HwEvent.CACHE_REFERENCES);
      l2Source = "cache-references (Intel: LLC references, about the L2 misses)";
    }
    OptionalLong llc = reading.count(HwEvent.LLC_LOAD_MISSES);
    String llcSource = HwEvent.LLC_LOAD_MISSES.perfName();
    if (llc.isEmpty() && vendor == Vendor.INTEL && reading.count(HwEvent.CACHE_MISSES).isPresent()) {
      llc = reading.count(HwEvent.CACHE_MISSES);
      llcSource = "cache-misses (Intel: LLC misses)";
    }

    int lastLevel = profile.caches().stream().filter(c -> c.cache().holdsData())
        .mapToInt(c -> c.cache().level()).max().orElse(0);
    double l2Latency = latency(profile, 2);
    double llcLatency = latency(profile, lastLevel);
    boolean hasL3 = lastLevel >= 3;
    if (!hasL3 && l2.isPresent()) { // L2 is the last level: its misses go to memory
      if (llc.isEmpty()) {
        llc = l2;
        llcSource = l2Source;
      }
      l2 = OptionalLong.empty();
    }

    if (l1.isEmpty()) {
      notes.add("L1-dcache-load-misses not counted: no L1D-miss term");
    } else if (Double.isNaN(l2Latency)) {
      notes.add("the profile has no L2 hit latency: no L1D-miss term");
    } else {
      long below;
      String source;
      boolean lowerBound;
      if (hasL3 && l2.isPresent()) {
        below = l2.getAsLong();
        source = l1Source + " - " + l2Source;
        lowerBound = false;
      } else if (llc.isPresent()) {
        below = llc.getAsLong();
        source = l1Source + " - " + llcSource;
        lowerBound = hasL3;
        if (hasL3) {
          notes.add("no L2-miss counter here: L1D misses that hit the LLC are charged as L2 hits");
        }
      } else {
        below = 0;
        source = l1Source;
        lowerBound = lastLevel >= 2;
        notes.add("no L2- or LLC-miss counter here: every L1D miss is charged as an L2 hit");
      }
      stalls.add(new Stall(Component.L2_HIT, source, difference(l1.getAsLong(), below, "L1D", notes),
          l2Latency, lowerBound));
    }

    if (hasL3 && l2.isPresent()) {
      if (Double.isNaN(llcLatency)) {
        notes.add("the profile has no LLC hit latency: no L2-miss term");
      } else if (llc.isPresent()) {
        stalls.add(new Stall(Component.LLC_HIT, l2Source + " - " + llcSource,
            difference(l2.getAsLong(), llc.getAsLong(), "L2", notes), llcLatency, false));
      } else {
        stalls.add(new Stall(Component.LLC_HIT, l2Source, l2.getAsLong(), llcLatency, true));
        notes.add("no LLC-miss counter here (AMD Zen has no LLC-load-misses): L2 misses served by memory are "
            + "charged as LLC hits");
      }
    }

    if (llc.isPresent()) {
      stalls.add(new Stall(Component.MEMORY, llcSource, llc.getAsLong(), profile.missLatencyNanos(), false));
    } else if (!(hasL3 && l2.isPresent())) {
      notes.add("no LLC-miss counter here: no memory term");
    }

    OptionalLong tlb = reading.count(HwEvent.DTLB_LOAD_MISSES);
    if (tlb.isEmpty()) {
      notes.add("dTLB-load-misses not counted: no TLB term");
    } else if (Double.isNaN(profile.tlb().missNanos())) {
      notes.add("the profile has no TLB miss cost: no TLB term");
    } else {
      stalls.add(new Stall(Component.DTLB, HwEvent.DTLB_LOAD_MISSES.perfName(), tlb.getAsLong(),
          profile.tlb().missNanos(), false));
    }

    OptionalLong branches = reading.count(HwEvent.BRANCH_MISSES);
    if (branches.isEmpty()) {
      notes.add("branch-misses not counted: no T_B term");
    } else if (Double.isNaN(profile.branchMissNanos())) {
      notes.add("the profile has no branch-miss penalty (./memwall calibrate --refresh measures it): no T_B term");
    } else {
      stalls.add(new Stall(Component.BRANCH, HwEvent.BRANCH_MISSES.perfName(), branches.getAsLong(),
          profile.branchMissNanos(), false));
    }
    return new StallBreakdown(reading.wallNanos(), stalls, notes);
  }

  /**
   * {@link #format()} of the breakdown of {@code reading}, or, where nothing was counted, one line
   * saying so and why.
   */
  public static String describe(CounterReading reading, MachineProfile profile) {
    return switch (reading) {
      case CounterReading.Available available -> of(available, profile).format();
      case CounterReading.Unavailable unavailable ->
          "stall breakdown: unavailable, no hardware counters (" + unavailable.reason() + ")";
    };
  }

  /** A table: each term's events, penalty, time and share of T_Q, then T_M, T_B, the residual and the notes. */
  public String format() {
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
        "stall breakdown (seed 003, eq. 1-2), T_Q = %.3f ms measured%n", totalNanos / 1e6));
    out.append(String.format(Locale.ROOT, "  %-28s %15s %10s %12s %7s%n", "term", "events", "penalty", "time", "of T_Q"));
    for (Stall stall : stalls) {
      out.append(String.format(Locale.ROOT, "  %-28s %,15d %7.1f ns %9.3f ms %6.1f%%%s%n",
          stall.component().label(), stall.events(), stall.penaltyNanos(), stall.nanos() / 1e6,
          share(stall.nanos()), stall.lowerBound() ? " (at least)" : ""));
    }
    out.append(row("T_M memory stalls", memoryStallNanos()));
    out.append(row("T_B branch stalls", branchStallNanos()));
    out.append(row("T_C + T_R - T_OVL (rest)", residualNanos()));
    if (residualNanos() < 0) {
      out.append("  the stall terms exceed the measured time: the misses overlapped (memory-level parallelism)")
          .append(System.lineSeparator());
    }
    for (Stall stall : stalls) {
      out.append("  ").append(stall.component().label()).append(": ").append(stall.counters())
          .append(System.lineSeparator());
    }
    for (String note : notes) {
      out.append("  note: ").append(note).append(System.lineSeparator());
    }
    return out.toString();
  }

  private String row(String label, double nanos) {
    return String.format(Locale.ROOT, "  %-28s %15s %10s %9.3f ms %6.1f%%%n", label, "", "", nanos / 1e6, share(nanos));
  }

  private double share(double nanos) {
    return totalNanos == 0 ? 0 : 100.0 * nanos / totalNanos;
  }

  /** The hit latency of the data cache at {@code level}, NaN when the profile has none. */
  private static double latency(MachineProfile profile, int level) {
    return profile.caches().stream().filter(c -> c.cache().holdsData() && c.cache().level() == level)
        .mapToDouble(MachineProfile.MeasuredCache::hitLatencyNanos).findFirst().orElse(Double.NaN);
  }

  /** {@code misses - deeper}, or 0 with a note where the counters disagree (different event definitions). */
  private static long difference(long misses, long deeper, String level, List<String> notes) {
    if (misses >= deeper) {
      return misses - deeper;
    }
    notes.add("the counters disagree: fewer " + level + " misses (" + misses + ") than misses of the level below ("
        + deeper + "); the term is 0");
    return 0;
  }
}
