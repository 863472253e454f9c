package dev.memwall.join.relational;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinKeyException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Columns of the Arrow types memwall reads through views or new kinds (bool, int8, int16, float32,
 * date64, timestamps, large_utf8) ride through joins on both sides, in the pipelined hash join and
 * in a named algorithm's materializing join, with their values and nulls; a column memwall does not
 * read stays out of the way; a key it reads only through a view is refused by name.
 */
@ExtendWith(LeakCheck.class)
class TypedPayloadsTest {
  private static final int ROWS = 3000;

  @Test
  void typedColumnsRideThroughJoins(EngineMemory memory) {
    try (VectorSchemaRoot left = left(memory); VectorSchemaRoot right = right(memory);
        Table l = Table.borrow(left.getSchema(), List.of(left), null);
        Table r = Table.borrow(right.getSchema(), List.of(right), null)) {
      List<List<Object>> rows = new ArrayList<>();
      for (int k = 0; k < ROWS; k += 2) { // right holds the even keys
        rows.add(Arrays.asList(k, flag(k), tiny(k), real(k), day(k), instant(k), "r" + k, wall(k), small(k)));
      }
      List<String> expected = RelationTestData.rows(rows);
      ExecutionContext context = new ExecutionContext(memory, 2);
      for (JoinAlgorithm algorithm : new JoinAlgorithm[] {null, JoinAlgorithm.PHASH}) {
        Relation.JoinSpec spec = Relation.scan(l, context).join(Relation.scan(r, context)).on("k", "j");
        if (algorithm != null) {
          spec = spec.algorithm(algorithm);
        }
        try (Table joined = spec.keep("k", "flag", "tiny", "real", "day", "ts", "text", "rts", "rsmall")
            .orderBy(SortKey.asc("k")).toTable()) {
          assertEquals(expected, RelationTestData.rows(joined), "algorithm " + algorithm);
        }
      }
      var e = assertThrows(JoinKeyException.class, () -> Relation.scan(r, context)
          .join(Relation.scan(l, context)).on("rsmall", "tiny").algorithm(JoinAlgorithm.PHASH).keep("j").toTable().close());
      assertTrue(e.getMessage().contains("'tiny'") || e.getMessage().contains("'rsmall'"), e.getMessage());
    }
  }

  private static Object flag(int k) {
    return k % 5 == 0 ? null : k % 3 == 0;
  }

  private static Object tiny(int k) {
    return k % 7 == 0 ? null : (int) (byte) k;
  }

  private static Object real(int k) {
    return k % 11 == 0 ? null : (double) (k % 13 == 0 ? -0.0f : k / 4.0f);
  }

  private static Object day(int k) {
    return k % 17 == 0 ? null : LocalDate.ofEpochDay(k - 1500);
  }

  private static Object instant(int k) {
    return k % 19 == 0 ? null : Instant.ofEpochSecond(-1_000_000L * k, 1000L * k);
  }

  private static Object wall(int k) {
    return k % 23 == 0 ? null : LocalDateTime.ofEpochSecond(k * 1_000_000L - 1_000_000_000L, k, ZoneOffset.UTC);
  }

  private static Object small(int k) {
    return k % 29 == 0 ? null : (int) (short) (k * 31);
  }

  /** k (int32), flag, tiny, real, day (date64), ts (timestamp[us, UTC]), text (large_utf8), odd (time64). */
  private static VectorSchemaRoot left(EngineMemory memory) {
    var k = new IntVector("k", memory.arrow());
    var flag = new BitVector("flag", memory.arrow());
    var tiny = new TinyIntVector("tiny", memory.arrow());
    var real = new Float4Vector("real", memory.arrow());
    var day = new DateMilliVector("day", memory.arrow());
    var ts = new TimeStampMicroTZVector("ts", memory.arrow(), "UTC");
    var text = new LargeVarCharVector("text", memory.arrow());
    var odd = new TimeMicroVector("odd", memory.arrow());
    VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(k, flag, tiny, real, day, ts, text, odd));
    root.allocateNew();
    for (int i = 0; i < ROWS; i++) {
      k.setSafe(i, i);
      odd.setSafe(i, i);
      if (flag(i) == null) {
        flag.setNull(i);
      } else {
        flag.setSafe(i, (Boolean) flag(i) ? 1 : 0);
      }
      if (tiny(i) == null) {
        tiny.setNull(i);
      } else {
        tiny.setSafe(i, (byte) i);
      }
      if (real(i) == null) {
        real.setNull(i);
      } else {
        real.setSafe(i, i % 13 == 0 ? -0.0f : i / 4.0f);
      }
      if (day(i) == null) {
        day.setNull(i);
      } else {
        day.setSafe(i, (i - 1500) * 86_400_000L);
      }
      if (instant(i) == null) {
        ts.setNull(i);
      } else {
        ts.setSafe(i, -1_000_000_000_000L * i + i);
      }
      text.setSafe(i, ("r" + i).getBytes(StandardCharsets.UTF_8));
    }
    root.setRowCount(ROWS);
    return root;
  }

  /** j (int32, even keys), rts (timestamp[ns]), rsmall (int16). */
  private static VectorSchemaRoot right(EngineMemory memory) {
    var j = new IntVector("j", memory.arrow());
    var rts = new TimeStampNanoVector("rts", memory.arrow());
    var rsmall = new SmallIntVector("rsmall", memory.arrow());
    VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(j, rts, rsmall));
    root.allocateNew();
    int row = 0;
    for (int k = ROWS - 2; k >= 0; k -= 2, row++) {
      j.setSafe(row, k);
      if (wall(k) == null) {
        rts.setNull(row);
      } else {
        rts.setSafe(row, (k * 1_000_000L - 1_000_000_000L) * 1_000_000_000L + k);
      }
      if (small(k) == null) {
        rsmall.setNull(row);
      } else {
        rsmall.setSafe(row, (short) (k * 31));
      }
    }
    root.setRowCount(row);
    return root;
  }
}
