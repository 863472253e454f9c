package dev.memwall.core.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Tables built by {@link TableBuilder}, row by row and in bulk runs mixed at random, read back
 * equal to what was appended, across first batches, full-size later batches and partial last ones.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class TableBuilderProperties {
  private static final List<String> NAMES = List.of("i", "l", "d", "s");
  private static final List<ColumnType> TYPES =
      List.of(ColumnType.INT32, ColumnType.INT64, ColumnType.FLOAT64, ColumnType.STRING);

  @Property(tries = 12)
  void readsBackWhatWasAppended(@ForAll @IntRange(max = 3 * TableBuilder.BATCH_ROWS + 5) int rows,
      @ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    List<Object[]> expected = new ArrayList<>(rows);
    for (int r = 0; r < rows; r++) {
      int n = random.nextInt(Integer.MIN_VALUE, Integer.MAX_VALUE);
      expected.add(new Object[] {
          random.nextInt(8) == 0 ? null : n,
          random.nextInt(8) == 0 ? null : (long) n * 31 + r,
          random.nextInt(8) == 0 ? null : n / 7.0,
          random.nextInt(8) == 0 ? null : "v" + (r % 1000)});
    }
    try (TableBuilder builder = new TableBuilder(NAMES, TYPES, memory.arrow())) {
      for (int done = 0; done < rows; ) {
        if (random.nextBoolean()) {
          appendRow(builder, expected.get(done++));
        } else {
          int fit = builder.reserveRows(Math.min(rows - done, 1 + random.nextInt(3000)));
          int at = builder.nextRow();
          for (int i = 0; i < fit; i++) {
            setRow(builder, at + i, expected.get(done + i));
          }
          builder.commitRows(fit);
          done += fit;
        }
      }
      try (Table table = builder.build()) {
        assertEquals(rows, table.rowCount());
        int r = 0;
        for (Batch batch : table.batches()) {
          assertTrue(batch.rowCount() <= TableBuilder.BATCH_ROWS);
          for (int row = 0; row < batch.rowCount(); row++, r++) {
            Object[] values = expected.get(r);
            for (int c = 0; c < NAMES.size(); c++) {
              assertEquals(values[c], batch.column(c).getObject(row), "row " + r + " column " + NAMES.get(c));
            }
          }
        }
      }
    }
  }

  private static void appendRow(TableBuilder builder, Object[] values) {
    if (values[0] == null) builder.appendNull(); else builder.appendLong((Integer) values[0]);
    builder.appendLongOrNull((Long) values[1]);
    if (values[2] == null) builder.appendNull(); else builder.appendDouble((Double) values[2]);
    builder.appendStringOrNull((String) values[3]);
    builder.endRow();
  }

  private static void setRow(TableBuilder builder, int at, Object[] values) {
    IntVector ints = (IntVector) builder.vector(0);
    if (values[0] == null) ints.setNull(at); else TableBuilder.setInt32(ints, at, (Integer) values[0]);
    BigIntVector longs = (BigIntVector) builder.vector(1);
    if (values[1] == null) longs.setNull(at); else longs.set(at, (Long) values[1]);
    Float8Vector doubles = (Float8Vector) builder.vector(2);
    if (values[2] == null) doubles.setNull(at); else doubles.set(at, (Double) values[2]);
    VarCharVector strings = (VarCharVector) builder.vector(3);
    if (values[3] == null) strings.setNull(at); else strings.setSafe(at, ((String) values[3]).getBytes(StandardCharsets.UTF_8));
  }
}
