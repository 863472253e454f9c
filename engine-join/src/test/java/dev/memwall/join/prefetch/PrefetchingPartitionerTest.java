package dev.memwall.join.prefetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.machine.CacheLevel;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The partitioner's contract on bad input, and a full page going out the moment it fills. */
@ExtendWith(LeakCheck.class)
class PrefetchingPartitionerTest {
  private static final PrefetchingHashJoin.Mode GROUP = PrefetchingHashJoin.Mode.GROUP;
  private static final PrefetchTuning TUNING = new PrefetchTuning(8, 2);
  private static final PrefetchingPartitioner.PageSink IGNORE = (p, page) -> { };

  private static PrefetchingPartitioner partitioner(EngineMemory memory, int partitions, int pageBytes,
      int recordBytes, PrefetchingPartitioner.Routing routing) {
    return new PrefetchingPartitioner(memory, partitions, pageBytes, recordBytes, routing, GROUP, TUNING, IGNORE);
  }

  @Test
  void badShapesAreRejectedWithTheProblemNamed(EngineMemory memory) {
    PrefetchingPartitioner.Routing code = PrefetchingPartitioner.Routing.code(0);
    assertThrows(IllegalArgumentException.class, () -> partitioner(memory, 0, 64, 16, code));
    assertThrows(IllegalArgumentException.class, () -> partitioner(memory, 4, 64, 0, code));
    IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
        () -> partitioner(memory, 4, 15, 16, code));
    assertTrue(small.getMessage().contains("cannot hold"), small::getMessage);
    IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
        () -> partitioner(memory, 4, 64, 16, PrefetchingPartitioner.Routing.code(13)));
    assertTrue(outside.getMessage().contains("does not fit"), outside::getMessage);
    assertThrows(IllegalArgumentException.class,
        () -> partitioner(memory, 4, 64, 12, PrefetchingPartitioner.Routing.remixedKey(8, 1)));
    assertThrows(IllegalArgumentException.class, () -> PrefetchingPartitioner.Routing.code(-1));
  }

  @Test
  void badBatchesAndUseAfterCloseAreRejected(EngineMemory memory) {
    try (OffHeapBuffer input = memory.allocate(64)) {
      MemorySegment in = input.segment();
      PrefetchingPartitioner partitioner = partitioner(memory, 3, 64, 16, PrefetchingPartitioner.Routing.code(0));
      assertThrows(IllegalArgumentException.class, () -> partitioner.partition(in, -1));
      IllegalArgumentException short_ = assertThrows(IllegalArgumentException.class,
          () -> partitioner.partition(in, 5));
      assertTrue(short_.getMessage().contains("does not hold"), short_::getMessage);
      partitioner.partition(in, 4);
      assertEquals(4, partitioner.counts()[0], "zeroed records all have code 0");
      partitioner.close();
      partitioner.close();
      assertThrows(IllegalStateException.class, () -> partitioner.partition(in, 1));
      assertThrows(IllegalStateException.class, partitioner::finish);
    }
  }

  @Test
  void aPageGoesToTheSinkWhenItFillsAndTheRestOnFinish(EngineMemory memory) {
    int record = 20;
    try (OffHeapBuffer input = memory.allocate(7L * record)) {
      MemorySegment in = input.segment();
      for (int i = 0; i < 7; i++) {
        in.set(ValueLayout.JAVA_INT_UNALIGNED, (long) i * record + 4, 5 + 2 * i); // partitions 1, 1, 1, ...
        in.set(ValueLayout.JAVA_INT_UNALIGNED, (long) i * record + 8, i);
      }
      for (PrefetchingHashJoin.Mode mode : PrefetchingHashJoin.Mode.values()) {
        List<String> flushes = new ArrayList<>();
        // 3 records a page, 10 bytes of slack
        try (PrefetchingPartitioner partitioner = new PrefetchingPartitioner(memory, 2, 70, record,
            PrefetchingPartitioner.Routing.code(4), mode, new PrefetchTuning(4, 1),
            (p, page) -> flushes.add(p + ":" + page.byteSize() / record + "@"
                + page.get(ValueLayout.JAVA_INT_UNALIGNED, 8)))) {
          assertEquals(3, partitioner.pageRecords());
          partitioner.partition(in, 7);
          assertEquals(List.of("1:3@0", "1:3@3"), flushes, mode.toString());
          partitioner.finish();
          assertEquals(List.of("1:3@0", "1:3@3", "1:1@6"), flushes, mode.toString());
          assertEquals(7, partitioner.count(1));
          assertEquals(0, partitioner.count(0));
        }
      }
    }
  }

  @Test
  void theLineStrideComesFromTheFirstLevelAndFallsBackTo64() {
    assertEquals(64, PrefetchingPartitioner.lineBytes(List.of()));
    assertEquals(128, PrefetchingPartitioner.lineBytes(List.of(new CacheLevel(1, "Data", 65536, 128, 8))));
    assertEquals(64, PrefetchingPartitioner.lineBytes(List.of(new CacheLevel(1, "Data", 65536, 96, 8))));
  }
}
