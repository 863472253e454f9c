package dev.memwall.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The benchmark's kernels compute the same sums as a naive, branchy reference. */
@ExtendWith(LeakCheck.class)
class ScanBandwidthBenchmarkTest {
  @Test
  void allPathsAgreeWithAReference(EngineMemory unused) {
    int rows = 100_003;
    long sum = 0;
    long filtered = 0;
    long selected = 0;
    for (int i = 0; i < rows; i++) {
      long value = ScanBandwidthBenchmark.value(i);
      int date = ScanBandwidthBenchmark.date(i);
      sum += value;
      if (date >= ScanBandwidthBenchmark.DATE_LO && date < ScanBandwidthBenchmark.DATE_HI
          && value < ScanBandwidthBenchmark.VALUE_LIMIT) {
        filtered += value;
        selected++;
      }
    }
    // The predicate selects a few percent of rows, as Q6 does: neither none nor all.
    assertTrue(selected > rows / 100 && selected < rows / 10, "selected " + selected);

    var benchmark = new ScanBandwidthBenchmark();
    var offHeap = new ScanBandwidthBenchmark.OffHeap();
    offHeap.rows = rows;
    offHeap.setUp();
    try {
      assertEquals(sum, benchmark.sumSegment(offHeap));
      assertEquals(sum, benchmark.sumArrowGet(offHeap));
      assertEquals(filtered, benchmark.filteredSumSegment(offHeap));
      assertEquals(filtered, benchmark.filteredSumArrowGet(offHeap));
    } finally {
      offHeap.tearDown();
    }
    var heap = new ScanBandwidthBenchmark.Heap();
    heap.rows = rows;
    heap.setUp();
    assertEquals(sum, benchmark.sumHeapArray(heap));
    assertEquals(filtered, benchmark.filteredSumHeapArray(heap));
  }

  @Test
  void maskMatchesThePredicateAtItsEdges() {
    int lo = ScanBandwidthBenchmark.DATE_LO;
    int hi = ScanBandwidthBenchmark.DATE_HI;
    long limit = ScanBandwidthBenchmark.VALUE_LIMIT;
    assertEquals(-1L, ScanBandwidthBenchmark.mask(lo, 0));
    assertEquals(-1L, ScanBandwidthBenchmark.mask(hi - 1, limit - 1));
    assertEquals(0L, ScanBandwidthBenchmark.mask(lo - 1, 0));
    assertEquals(0L, ScanBandwidthBenchmark.mask(hi, 0));
    assertEquals(0L, ScanBandwidthBenchmark.mask(lo, limit));
  }
}
