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

  /** {@code profile} as calibrated where transparent huge pages are unavailable. */
  static MachineProfile withoutHugePages(MachineProfile profile) {
    MachineProfile.Tlb tlb = profile.tlb();
    return new MachineProfile(profile.cpu(), profile.cores(), profile.caches(), profile.missLatencyNanos(),
        profile.pipelinedMissNanos(), profile.memoryLevelParallelism(), profile.curve(), profile.bandwidth(),
        profile.pageBytes(), new MachineProfile.Tlb(tlb.entries(), tlb.missNanos(), Double.NaN, tlb.curve()));
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
   * The Xeon VM of 2026-11-26 as its calibration saw it: a 480 MiB L3 on sysfs whose latency was
   * not measured ({@code l3Nanos} NaN) or measured as slow as memory, a latency curve that stays
   * under half a miss (T1 228 ns) up to 16 MiB, and Tnext 18 ns with 16 misses in flight.
   */
  static MachineProfile sharedL3(double l3Nanos) {
    List<MachineProfile.LatencyPoint> curve = List.of(new MachineProfile.LatencyPoint(32 << 10, 1.47),
        new MachineProfile.LatencyPoint(1 << 20, 5.3), new MachineProfile.LatencyPoint(2 << 20, 16.6),
        new MachineProfile.LatencyPoint(4 << 20, 34.7), new MachineProfile.LatencyPoint(16 << 20, 97.5),
        new MachineProfile.LatencyPoint(32 << 20, 162.9), new MachineProfile.LatencyPoint(256 << 20, 227.7));
    return new MachineProfile("shared L3", 2,
        List.of(new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", 48 << 10, 64, 12), 0, 1.47),
            new MachineProfile.MeasuredCache(new CacheLevel(2, "Unified", 2 << 20, 64, 16), 0, 4.8),
            new MachineProfile.MeasuredCache(new CacheLevel(3, "Unified", 480 << 20, 64, 16), 0, l3Nanos)),
        227.7, 18.1, 12.6, curve, new MachineProfile.Bandwidth(8.9, 10.1, 19.2, 16.8, 19.4, 38.1), 4096,
        new MachineProfile.Tlb(1024, 11.7, 8.8, List.of()));
  }
}
