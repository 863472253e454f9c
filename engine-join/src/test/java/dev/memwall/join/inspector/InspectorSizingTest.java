package dev.memwall.join.inspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.bloom.BloomFilter;
import dev.memwall.core.machine.CacheLevel;
import dev.memwall.core.machine.MachineProfile;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Eq. 5.1 and 5.6 of seed 002 as {@link InspectorSizing} applies them. */
class InspectorSizingTest {

  @Test
  void pagesPerSubPartitionFollowEquation51() {
    long cache = 512 << 10;
    InspectorSizing s = InspectorSizing.of(1 << 20, 100, 4096, cache);
    assertEquals(104, s.recordBytes());
    assertEquals(4096 / 104, s.tuplesPerPage());
    int n = s.tuplesPerPage();
    int k = s.pagesPerSubPartition();
    // the largest K with K P + K n H <= C
    assertTrue(k * 4096L + (long) k * n * InspectorSizing.TABLE_BYTES_PER_KEY <= cache, s::toString);
    assertTrue((k + 1) * 4096L + (long) (k + 1) * n * InspectorSizing.TABLE_BYTES_PER_KEY > cache, s::toString);
    // about S sub-partitions per partition
    long perPartition = (1L << 20) / s.partitions() / s.tuplesPerSubPartition();
    assertTrue(perPartition <= InspectorSizing.TARGET_SUB_PARTITIONS && perPartition > InspectorSizing.TARGET_SUB_PARTITIONS / 2,
        s::toString);
  }

  @Test
  void filtersGetTheBitsPerKeyOfFprOverS() {
    InspectorSizing s = InspectorSizing.of(1 << 20, 100, 4096, 512 << 10);
    double bitsPerKey = BloomFilter.bitsPerKey(InspectorSizing.FALSE_POSITIVE_RATE / InspectorSizing.TARGET_SUB_PARTITIONS,
        InspectorSizing.HASHES);
    assertEquals(bitsPerKey * s.tuplesPerSubPartition(), s.filterBits(), 64, s::toString);
    assertEquals(0, s.filterBits() % 64);
    // the thesis's Table 5.2: 28.474 bits per key at fpr 0.001 (0.05 / 50) with 3 hash functions
    assertEquals(28.474, BloomFilter.bitsPerKey(0.05 / 50, 3), 0.01);
  }

  @Test
  void tinyCachesStillGiveOnePagePerSubPartition() {
    InspectorSizing s = InspectorSizing.of(10, 64, 64, 1);
    assertEquals(1, s.pagesPerSubPartition());
    assertEquals(1, s.tuplesPerPage());
    assertThrows(IllegalArgumentException.class, () -> InspectorSizing.of(10, 12, 4096, 1024));
  }

  /** C is half of the largest cache that answers faster than half a memory miss (a VM's L3 may not). */
  @Test
  void effectiveCacheSkipsALastLevelAsSlowAsMemory() {
    MachineProfile slowL3 = profile(138, 167);
    assertEquals(512 << 10, InspectorSizing.effectiveCache(slowL3));
    MachineProfile fastL3 = profile(40, 167);
    assertEquals(16 << 20, InspectorSizing.effectiveCache(fastL3));
    MachineProfile unmeasuredL3 = profile(Double.NaN, 167); // a quick calibration may not reach the L3
    assertEquals(1 << 20, unmeasuredL3.fastCacheBytes());
    assertEquals(32 << 20, profile(Double.NaN, Double.NaN).fastCacheBytes(), "without T1 the sizes are trusted");
  }

  private static MachineProfile profile(double l3Nanos, double missNanos) {
    return new MachineProfile("test", 2,
        List.of(new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", 32 << 10, 64, 8), 0, 1.5),
            new MachineProfile.MeasuredCache(new CacheLevel(2, "Unified", 1 << 20, 64, 8), 0, 4.3),
            new MachineProfile.MeasuredCache(new CacheLevel(3, "Unified", 32 << 20, 64, 16), 0, l3Nanos)),
        missNanos, 1.5, 100, List.of(), new MachineProfile.Bandwidth(20, 20, 40, 25, 40, 50), 4096,
        new MachineProfile.Tlb(2048, 3, Double.NaN, List.of()));
  }
}
