package dev.memwall.core.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Sketches of a table's parts merge into the sketch of the whole table, register for register, for
 * any split (empty parts included); stored sketches are refused when no pass could give them.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class ColumnSketchProperties {

  @Provide
  Arbitrary<List<Long>> values() {
    Arbitrary<Long> value = Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.of(0L, 7L)), // skew
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, -1L)), // type limits
        Tuple.of(3, Arbitraries.longs().between(-50, 50)), // duplicates
        Tuple.of(3, Arbitraries.longs()))
        .injectNull(0.15);
    return value.list().ofMinSize(0).ofMaxSize(3000);
  }

  private static Table table(List<Long> values, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("n", "x", "s"),
        List.of(ColumnType.INT64, ColumnType.FLOAT64, ColumnType.STRING), memory.arrow())) {
      builder.batchRows(256);
      for (Long v : values) {
        if (v == null) {
          builder.appendNull().appendNull().appendNull();
        } else {
          double x = v == 0 ? -0.0 : v == 7 ? Double.NaN : v / 3.0;
          builder.appendLong(v).appendDouble(x).appendString(("s" + v).getBytes(StandardCharsets.UTF_8));
        }
        builder.endRow();
      }
      return builder.build();
    }
  }

  @Property(tries = 60)
  void partsMergeIntoTheWhole(@ForAll("values") List<Long> values, @ForAll @IntRange(min = 1, max = 5) int parts,
      @ForAll long seed, EngineMemory memory) {
    List<Integer> cuts = new ArrayList<>();
    java.util.Random random = new java.util.Random(seed);
    for (int i = 1; i < parts; i++) {
      cuts.add(values.isEmpty() ? 0 : random.nextInt(values.size() + 1));
    }
    cuts.add(0);
    cuts.add(values.size());
    cuts.sort(null);
    try (Table whole = table(values, memory)) {
      for (int column = 0; column < 3; column++) {
        ColumnSketch merged = null;
        for (int p = 0; p + 1 < cuts.size(); p++) {
          try (Table part = table(values.subList(cuts.get(p), cuts.get(p + 1)), memory)) {
            ColumnSketch sketch = ColumnSketch.of(part, column);
            if (merged == null) {
              merged = sketch;
            } else {
              merged.merge(sketch);
            }
          }
        }
        ColumnSketch expected = ColumnSketch.of(whole, column);
        assertEquals(expected, merged, "column " + column);
        assertEquals(expected.distinct(whole.rowCount()), merged.distinct(whole.rowCount()));
      }
    }
  }

  @Example
  void storedSketchesNoPassCouldGiveAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> HyperLogLog.of(new byte[HyperLogLog.REGISTERS - 1]));
    byte[] registers = new byte[HyperLogLog.REGISTERS];
    registers[17] = (byte) (HyperLogLog.MAX_RANK + 1);
    assertThrows(IllegalArgumentException.class, () -> HyperLogLog.of(registers));
    registers[17] = -1;
    assertThrows(IllegalArgumentException.class, () -> HyperLogLog.of(registers));
    HyperLogLog empty = new HyperLogLog();
    assertThrows(IllegalArgumentException.class, () -> new ColumnSketch(-1, false, 0, Double.NaN, Double.NaN, empty));
    assertThrows(IllegalArgumentException.class, () -> new ColumnSketch(0, false, -1, Double.NaN, Double.NaN, empty));
    assertThrows(IllegalArgumentException.class, () -> new ColumnSketch(0, false, 0, 1, Double.NaN, empty));
    assertThrows(IllegalArgumentException.class, () -> new ColumnSketch(0, false, 0, 2, 1, empty));
    assertEquals(0, new ColumnSketch(0, false, 0, Double.NaN, Double.NaN, empty).distinct(0));
  }
}
