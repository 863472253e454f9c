package dev.memwall.core.machine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The machine profile a host gets when it passes none and names no calibrated one: cache sizes and
 * line sizes as the operating system reports them (cheap to read, nothing is measured), and fixed
 * latencies and bandwidths of an ordinary server core in place of what the calibrator would measure.
 *
 * <p>Why fixed values rather than a quick calibration: a library must not spend seconds measuring
 * or write files behind its host's back, and the cost models only compare alternatives, so
 * round numbers of the right order choose sensibly; a calibrated profile ({@code ./memwall
 * calibrate}, or {@link Calibrator}) sharpens the choices where they are close. Where the operating
 * system describes no caches (not Linux, a container hiding sysfs), three levels of modest size are
 * assumed, so that structures sized to fit a cache stay small rather than spill.
 *
 * <p>Thread safety: stateless.
 */
final class ConservativeProfile {
  /** A full miss to memory, dependent accesses. */
  static final double MISS_NANOS = 100;
  /** The time per miss with many independent misses in flight. */
  static final double PIPELINED_MISS_NANOS = 10;
  /** Second-level TLB entries of 4 KiB pages. */
  static final long TLB_ENTRIES = 1536;
  /** The extra latency of an access that misses the TLB. */
  static final double TLB_MISS_NANOS = 10;
  /** Read, write and copy bandwidth in GB/s (bytes per nanosecond), one core and all of them. */
  static final MachineProfile.Bandwidth BANDWIDTH = new MachineProfile.Bandwidth(10, 8, 12, 20, 15, 24);

  /** Hit latencies of levels 1, 2, 3 and beyond. */
  private static final double[] HIT_NANOS = {1.2, 4, 15, 40};
  /** Assumed caches where the operating system describes none. */
  private static final List<CacheLevel> ASSUMED = List.of(
      new CacheLevel(1, "Data", 32 << 10, 64, 8),
      new CacheLevel(2, "Unified", 512 << 10, 64, 8),
      new CacheLevel(3, "Unified", 8 << 20, 64, 16));

  private ConservativeProfile() {}

  /** The profile for the caches below {@code sysfsRoot} (or the assumed ones when it shows none). */
  static MachineProfile of(Path sysfsRoot) {
    List<CacheLevel> described = SysfsTopology.dataCaches(sysfsRoot);
    List<MachineProfile.MeasuredCache> caches = new ArrayList<>();
    for (CacheLevel cache : described.isEmpty() ? ASSUMED : described) {
      double hit = HIT_NANOS[Math.min(Math.max(cache.level(), 1), HIT_NANOS.length) - 1];
      caches.add(new MachineProfile.MeasuredCache(cache, cache.sizeBytes(), hit));
    }
    String cpu = System.getProperty("os.arch") + " (conservative defaults, not calibrated)";
    return new MachineProfile(cpu, Runtime.getRuntime().availableProcessors(), caches, MISS_NANOS,
        PIPELINED_MISS_NANOS, MISS_NANOS / PIPELINED_MISS_NANOS, List.of(), BANDWIDTH, 4096,
        new MachineProfile.Tlb(TLB_ENTRIES, TLB_MISS_NANOS, Double.NaN, List.of()));
  }
}
