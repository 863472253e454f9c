package dev.memwall.bench.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.temporal.LayoutKind;
import dev.memwall.core.temporal.TemporalLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's table is the same in every layout, every version changes one varying attribute,
 * and the traffic per query follows the paper's argument: reading one varying attribute's history
 * of 100 versions, NSM reads more than TDSM, which reads more than PSP.
 */
class TemporalLayoutBenchmarkTest {

  @Test
  void everyLayoutHoldsTheSameTableAndPspReadsLeastForAnAttributesHistory() {
    try (EngineMemory memory = EngineMemory.create("benchmark test")) {
      List<TemporalLayout> tables = new ArrayList<>();
      long[] attributeBytes = new long[LayoutKind.values().length];
      try {
        for (LayoutKind kind : LayoutKind.values()) {
          TemporalLayout table = TemporalLayoutBenchmark.build(kind, memory, 100, 3);
          tables.add(table);
          assertEquals(TemporalLayoutBenchmark.ENTITIES, table.entities());
          table.countTraffic(true);
          table.attributeHistory(17, 2);
          attributeBytes[kind.ordinal()] = table.lastQueryBytes();
        }
        for (long e : new long[] {0, 17, TemporalLayoutBenchmark.ENTITIES - 1}) {
          assertEquals(100, tables.getFirst().history(e).size(), "every version is a change");
          for (TemporalLayout other : tables) {
            assertEquals(tables.getFirst().history(e), other.history(e), other.kind() + " history of " + e);
          }
        }
        for (TemporalLayout other : tables) {
          assertEquals(tables.getFirst().snapshot(50).size(), other.snapshot(50).size());
        }
        assertTrue(attributeBytes[LayoutKind.NSM.ordinal()] > attributeBytes[LayoutKind.TDSM.ordinal()],
            Arrays.toString(attributeBytes));
        assertTrue(attributeBytes[LayoutKind.TDSM.ordinal()] > attributeBytes[LayoutKind.PSP.ordinal()],
            Arrays.toString(attributeBytes));
      } finally {
        tables.forEach(TemporalLayout::close);
      }
    }
  }
}
