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
}
