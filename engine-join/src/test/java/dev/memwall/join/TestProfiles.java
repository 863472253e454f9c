package dev.memwall.join;

import dev.memwall.core.machine.CacheLevel;
import dev.memwall.core.machine.MachineProfile;
import java.util.List;

/** Synthetic machine profiles, so planner tests do not depend on the machine running them. */
final class TestProfiles {
  private TestProfiles() {}

  /** A profile shaped like the development VMs (32 KiB L1, 512 KiB L2, 2 MiB effective L3, 4096-entry TLB). */
  static MachineProfile vm() {
    return new MachineProfile("synthetic", 2,
        List.of(new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", 48 << 10, 64, 12), 32 << 10, 1.7),
            new MachineProfile.MeasuredCache(new CacheLevel(2, "Unified", 1 << 20, 64, 16), 512 << 10, 4.3),
            new MachineProfile.MeasuredCache(new CacheLevel(3, "Unified", 32 << 20, 64, 16), 2 << 20, 15)),
        200, 24, 8.3, List.of(), new MachineProfile.Bandwidth(22, 22, 35, 30, 25, 40), 4096,
        new MachineProfile.Tlb(4096, 10, 16, List.of()));
  }

  /** A tiny, seed-like machine: 64 TLB entries, small caches, so the planner picks many bits even for small inputs. */
  static MachineProfile tiny() {
    return new MachineProfile("tiny", 1,
        List.of(new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", 1 << 10, 32, 2), 1 << 10, 2),
            new MachineProfile.MeasuredCache(new CacheLevel(2, "Unified", 8 << 10, 64, 4), 8 << 10, 10)),
        400, 100, 4, List.of(), new MachineProfile.Bandwidth(1, 1, 1, 1, 1, 1), 4096,
        new MachineProfile.Tlb(64, 228, Double.NaN, List.of()));
  }

  /**
   * A seed-like machine with pages of {@code pageBytes} and a last cache of {@code cacheBytes}, so the
   * inspector join's sub-partitions hold a few tuples and small inputs get many partitions and
   * sub-partitions (more than 64 per partition under skew).
   */
  static MachineProfile inspector(int pageBytes, int cacheBytes) {
    return new MachineProfile("inspector", 2,
        List.of(new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", 1 << 10, 32, 2), 1 << 10, 2),
            new MachineProfile.MeasuredCache(new CacheLevel(2, "Unified", cacheBytes, 64, 4), cacheBytes, 10)),
        400, 100, 4, List.of(), new MachineProfile.Bandwidth(1, 1, 1, 1, 1, 1), pageBytes,
        new MachineProfile.Tlb(64, 228, Double.NaN, List.of()));
  }

  /**
   * The Xeon VM of 2026-11-24 as its calibration saw it: a 480 MiB L3 on sysfs whose latency was
   * not measured ({@code l3Nanos} NaN) or measured as slow as memory, and a latency curve that stays
   * under half a miss (T1 190 ns) up to 16 MiB.
   */
  static MachineProfile sharedL3(double l3Nanos) {
    List<MachineProfile.LatencyPoint> curve = List.of(new MachineProfile.LatencyPoint(32 << 10, 1.4),
        new MachineProfile.LatencyPoint(1 << 20, 5.2), new MachineProfile.LatencyPoint(2 << 20, 17.5),
        new MachineProfile.LatencyPoint(4 << 20, 35.4), new MachineProfile.LatencyPoint(16 << 20, 49.3),
        new MachineProfile.LatencyPoint(32 << 20, 96.9), new MachineProfile.LatencyPoint(256 << 20, 190.7));
    return new MachineProfile("shared L3", 2,
        List.of(new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", 48 << 10, 64, 12), 0, 1.4),
            new MachineProfile.MeasuredCache(new CacheLevel(2, "Unified", 2 << 20, 64, 16), 0, 4.8),
            new MachineProfile.MeasuredCache(new CacheLevel(3, "Unified", 480 << 20, 64, 16), 0, l3Nanos)),
        190.7, 23.7, 8.0, curve, new MachineProfile.Bandwidth(10.6, 10.9, 21.4, 18.5, 21.7, 50.3), 4096,
        new MachineProfile.Tlb(1024, 5.4, 4.7, List.of()));
  }
}
