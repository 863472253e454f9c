package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.JoinTestData.Side;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.reducer.BloomReducer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The semi-join reducer drops what it should and nothing more. */
@ExtendWith(LeakCheck.class)
class BloomReducerTest {

  /**
   * Left rows of which about 30% have a partner: the reducer passes those and about 1% of the others
   * (its false-positive rate), and every join type gives the unreduced pairs, materialized too.
   */
  @Test
  void dropsRowsWithoutPartnersAndKeepsResults(EngineMemory memory) {
    Random random = new Random(21);
    int rows = 30_000;
    Long[][] build = new Long[1][rows];
    Long[][] probe = new Long[1][rows];
    int partners = 0;
    for (int i = 0; i < rows; i++) {
      build[0][i] = (long) i;
      boolean match = random.nextInt(100) < 30;
      partners += match ? 1 : 0;
      probe[0][i] = match ? (long) random.nextInt(rows) : rows + (long) random.nextInt(1 << 28);
    }
    Side left = new Side(List.of(KeyType.INT64), probe, new int[] {rows / 2, rows - rows / 2});
    Side right = new Side(List.of(KeyType.INT64), build, new int[] {rows});
    try (Table l = JoinTestData.table(memory, left, "l"); Table r = JoinTestData.table(memory, right, "r")) {
      for (JoinType type : JoinType.values()) {
        Join plain = Join.of(memory, l, r).on("k0").type(type).algorithm(JoinAlgorithm.PHASH_PLUS)
            .profile(TestProfiles.vm());
        long[] expected;
        try (JoinIndex index = plain.index()) {
          expected = JoinTestData.pairs(index);
        }
        assertNull(plain.analyze().reducer());
        for (JoinAlgorithm algorithm : List.of(JoinAlgorithm.PHASH_PLUS, JoinAlgorithm.INSPECTOR, JoinAlgorithm.GRACE)) {
          Join reduced = Join.of(memory, l, r).on("k0").type(type).algorithm(algorithm).profile(TestProfiles.vm())
              .semiJoinReducer(true).threads(2);
          try (JoinIndex index = reduced.index()) {
            assertArrayEquals(expected, JoinTestData.pairs(index), type + " " + algorithm);
          }
          BloomReducer.Report report = reduced.analyze().reducer();
          long kept = report.keptRows();
          assertTrue(kept >= partners && kept < partners + 0.03 * (rows - partners), report + " vs "
              + partners + " rows with partners");
          try (Table rowsOut = reduced.materialize(List.of("p_l"), List.of())) {
            assertEquals(expected.length, rowsOut.rowCount(), type + " " + algorithm + " materialized");
          }
        }
      }
    }
  }
}
