package dev.memwall.core.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The memory traffic each layout reports follows from its layout: for an entity of 100 versions of
 * 8 attributes of which only the first changes, NSM reads every row for any attribute, TDSM and PSP
 * read one value for a constant attribute, and a whole history in PSP reads no more than its
 * sub-page while NSM reads every repeated value.
 */
@ExtendWith(LeakCheck.class)
class TemporalTrafficTest {
  private static final int VERSIONS = 100;
  private static final int ATTRIBUTES = 8;

  @Test
  void versionRedundancyCostsNsmTrafficThatTdsmAndPspAvoid(EngineMemory memory) {
    Map<LayoutKind, long[]> bytes = new EnumMap<>(LayoutKind.class);
    for (LayoutKind kind : LayoutKind.values()) {
      try (TemporalLayout layout = TemporalLayout.create(kind, memory, ATTRIBUTES)) {
        for (int v = 0; v < VERSIONS; v++) {
          long[] values = new long[ATTRIBUTES];
          values[0] = v;
          layout.append(1, v, values);
        }
        layout.history(1);
        assertEquals(0, layout.lastQueryBytes(), "counting is off until asked for");
        layout.countTraffic(true);
        layout.attributeHistory(1, ATTRIBUTES - 1);
        long constant = layout.lastQueryBytes();
        layout.attributeHistory(1, 0);
        long changing = layout.lastQueryBytes();
        layout.history(1);
        long history = layout.lastQueryBytes();
        layout.snapshot(VERSIONS / 2);
        long snapshot = layout.lastQueryBytes();
        bytes.put(kind, new long[] {constant, changing, history, snapshot});
      }
    }
    long rowLines = (VERSIONS * (2L + ATTRIBUTES) * 8 + 63) / 64;
    assertEquals(rowLines * 64, bytes.get(LayoutKind.NSM)[0], "NSM reads every row for a constant attribute");
    assertTrue(bytes.get(LayoutKind.TDSM)[0] <= 128, "TDSM reads one triple: " + bytes.get(LayoutKind.TDSM)[0]);
    assertTrue(bytes.get(LayoutKind.PSP)[0] <= 192, "PSP reads the header and one value: " + bytes.get(LayoutKind.PSP)[0]);
    // the changing attribute: 100 values with their times, 16 bytes each in PSP, 24 in TDSM, 80 in NSM
    assertTrue(bytes.get(LayoutKind.PSP)[1] < bytes.get(LayoutKind.TDSM)[1]);
    assertTrue(bytes.get(LayoutKind.TDSM)[1] < bytes.get(LayoutKind.NSM)[1]);
    assertTrue(bytes.get(LayoutKind.PSP)[2] * 3 < bytes.get(LayoutKind.NSM)[2], "a whole history without redundancy");
    for (long[] b : bytes.values()) {
      assertTrue(b[3] > 0 && b[3] <= 64L * (2 + ATTRIBUTES * 8), "a snapshot of one entity is a search: " + b[3]);
    }
  }
}
