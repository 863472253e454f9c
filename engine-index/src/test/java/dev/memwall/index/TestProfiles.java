package dev.memwall.index;

import dev.memwall.core.machine.MachineProfile;
import java.util.List;

/** Synthetic machine profiles for cost-model tests: only the constants the models read are set. */
public final class TestProfiles {
  private TestProfiles() {}

  public static MachineProfile of(double t1, double tnext, double tlbMiss) {
    return new MachineProfile("synthetic", 2, List.of(), t1, tnext, t1 / tnext, List.of(),
        new MachineProfile.Bandwidth(10, 10, 10, 10, 10, 10), 4096,
        new MachineProfile.Tlb(4096, tlbMiss, Double.NaN, List.of()));
  }

  /** Roughly the development VM: T1 240 ns, Tnext 24 ns, TLB miss 10 ns. */
  public static MachineProfile vm() {
    return of(240, 24, 10);
  }
}
