package dev.memwall.index.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ChildJvm;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.temporal.LayoutKind;
import dev.memwall.core.temporal.ReferenceTable;
import dev.memwall.core.temporal.Snapshot;
import dev.memwall.index.KilledChild;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Kills a child JVM ({@link TemporalCrashChild}) in the middle of appending and reopens its table:
 * it must hold exactly a committed prefix of the appends, the last one the child reported or (when
 * the kill fell between a sync and its report) the one after it, and keep working.
 */
@ExtendWith(LeakCheck.class)
class PagedTemporalCrashTest {
  @TempDir
  Path dir;

  @ParameterizedTest
  @EnumSource(LayoutKind.class)
  void killedMidAppendReopensAtTheLastCommit(LayoutKind kind, EngineMemory memory) throws Exception {
    int batch = 89;
    for (int round = 0; round < 2; round++) {
      Path file = dir.resolve(kind + "-" + round);
      long seed = 99L + round;
      Process child = ChildJvm.start(TemporalCrashChild.class, file.toString(), kind.name(), Long.toString(seed),
          Integer.toString(batch));
      int wanted = 6 + round * 9;
      List<String> lines = new ArrayList<>();
      long reported = KilledChild.killAfter(child, (long) wanted * batch, round * 2L, lines);
      assertTrue(reported >= 0, "child never committed: " + lines);
      try (PagedTemporalTable table = PagedTemporalTable.open(file, PagedTemporalTableProperties.SMALL, memory)) {
        ReferenceTable atReport = model(seed, reported);
        ReferenceTable atNext = model(seed, reported + batch);
        ReferenceTable expected = same(atReport, table) ? atReport : atNext;
        assertTrue(same(expected, table), kind + " reopened with " + table.entities() + " entities is neither commit "
            + reported + " nor the next");
        table.append(-5, Long.MAX_VALUE - 1, 1, 2, 3, 4);
        expected.append(-5, Long.MAX_VALUE - 1, new long[] {1, 2, 3, 4});
        table.sync();
        assertEquals(expected.history(-5), table.history(-5));
      }
    }
  }

  private static boolean same(ReferenceTable reference, PagedTemporalTable table) {
    Snapshot expected = reference.snapshot(Long.MAX_VALUE);
    if (expected.size() != table.entities()) {
      return false;
    }
    for (long s : expected.surrogates()) {
      if (!reference.history(s).equals(table.history(s))) {
        return false;
      }
      for (int a = 0; a < TemporalCrashChild.ATTRIBUTES; a++) {
        if (!reference.attributeHistory(s, a).equals(table.attributeHistory(s, a))) {
          return false;
        }
      }
    }
    for (long t : new long[] {0, 100, 1000, Long.MAX_VALUE}) {
      Snapshot want = reference.snapshot(t);
      Snapshot got = table.snapshot(t);
      if (!Arrays.equals(want.surrogates(), got.surrogates()) || !Arrays.equals(want.values(), got.values())) {
        return false;
      }
    }
    return true;
  }

  /** The reference after the first {@code appends} appends of the child's sequence. */
  private static ReferenceTable model(long seed, long appends) {
    ReferenceTable reference = new ReferenceTable(TemporalCrashChild.ATTRIBUTES);
    Random random = new Random(seed);
    for (int i = 0; i < appends; i++) {
      long[] op = TemporalCrashChild.operation(random, i);
      reference.append(op[0], op[1], Arrays.copyOfRange(op, 2, op.length));
    }
    return reference;
  }
}
