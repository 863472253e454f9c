package dev.memwall.substrait.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.stats.HyperLogLog;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Collected column statistics against exact counts: nulls, min and max exact; distinct counts
 * within 5% (or 2 values) by the sketch, exact for a string column the builder kept
 * dictionary-encoded.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class TableStatisticsTest {

  @Provide
  Arbitrary<List<Long>> values() {
    Arbitrary<Long> value = Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.of(0L, 7L)), // skew: a few values repeated
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, -1L)), // type limits
        Tuple.of(3, Arbitraries.longs().between(-50, 50)), // duplicates
        Tuple.of(3, Arbitraries.longs())) // mostly distinct
        .injectNull(0.1);
    return value.list().ofMinSize(0).ofMaxSize(6000);
  }

  private static Table table(List<Long> values, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("n", "plain", "coded"),
        List.of(ColumnType.INT64, ColumnType.STRING, ColumnType.STRING), new boolean[] {false, false, true},
        memory.arrow())) {
      builder.batchRows(1024);
      for (Long v : values) {
        if (v == null) {
          builder.appendNull().appendNull().appendNull();
        } else {
          byte[] text = ("s" + v).getBytes(StandardCharsets.UTF_8);
          builder.appendLong(v).appendString(text).appendString(text);
        }
        builder.endRow();
      }
      return builder.build();
    }
  }

  @Property(tries = 40)
  void collectedStatisticsMatchExactCounts(@ForAll("values") List<Long> values, EngineMemory memory) {
    try (Table table = table(values, memory)) {
      TableStatistics statistics = TableStatistics.collected(table);
      List<Long> present = values.stream().filter(Objects::nonNull).toList();
      double exact = new HashSet<>(present).size();
      long nulls = values.size() - present.size();
      assertEquals(values.size(), statistics.rows());
      ColumnStatistics n = statistics.column("n").orElseThrow();
      assertEquals(nulls, n.nulls());
      assertTrue(Math.abs(n.distinct() - exact) <= Math.max(2, 0.05 * exact), n + " for " + exact + " distinct");
      if (present.isEmpty()) {
        assertTrue(!n.hasRange(), "no range without values: " + n);
      } else {
        assertEquals((double) present.stream().mapToLong(Long::longValue).min().orElseThrow(), n.min());
        assertEquals((double) present.stream().mapToLong(Long::longValue).max().orElseThrow(), n.max());
      }
      ColumnStatistics plain = statistics.column("plain").orElseThrow();
      assertTrue(Math.abs(plain.distinct() - exact) <= Math.max(2, 0.05 * exact), plain + " for " + exact);
      assertTrue(!plain.hasRange(), "strings have no range");
      ColumnStatistics coded = statistics.column("coded").orElseThrow();
      if (table.batches().stream().allMatch(batch -> batch.column(2) instanceof DictionaryColumn)) {
        assertEquals(exact, coded.distinct(), "a dictionary's size is exact");
      } else { // the builder decodes a dictionary that is not small against the rows: sketched then
        assertTrue(Math.abs(coded.distinct() - exact) <= Math.max(2, 0.05 * exact), coded + " for " + exact);
      }
      assertEquals(nulls, coded.nulls());
    }
  }

  @Property(tries = 5)
  void manyDistinctValuesAreEstimatedWithinFourStandardErrors(@ForAll("counts") int count) {
    HyperLogLog sketch = new HyperLogLog();
    Set<Long> exact = new HashSet<>();
    java.util.Random random = new java.util.Random(count);
    for (int i = 0; i < count; i++) {
      long v = i % 3 == 0 ? i : random.nextLong(count * 2L); // sequential keys and random repeats
      sketch.add(v);
      exact.add(v);
    }
    // HyperLogLog's standard error is 1.04 / sqrt(registers), 1.6% here; four of them are rarely exceeded
    double bound = 4 * 1.04 / Math.sqrt(HyperLogLog.REGISTERS);
    assertTrue(Math.abs(sketch.estimate() - exact.size()) <= bound * exact.size(),
        sketch.estimate() + " for " + exact.size());
  }

  @Provide
  Arbitrary<Integer> counts() {
    return Arbitraries.integers().between(10_000, 1_000_000);
  }

  @Property(tries = 1)
  void aColumnTheTableLacksIsRefusedByName(EngineMemory memory) {
    try (Table table = table(List.of(1L), memory)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> TableStatistics.collected(table).column("missing"));
      assertEquals("no column 'missing' in table with columns [n, plain, coded]", e.getMessage());
    }
  }

  @Property(tries = 1)
  void suppliedStatisticsKnowOnlyTheirColumnsAndRefuseNegativeCounts() {
    TableStatistics supplied = TableStatistics.supplied(100, Map.of("k", ColumnStatistics.distinct(100)));
    assertEquals(100, supplied.column("k").orElseThrow().distinct());
    assertTrue(supplied.column("other").isEmpty());
    assertEquals("a row count is at least 0: -1.0",
        assertThrows(IllegalArgumentException.class, () -> TableStatistics.supplied(-1, Map.of())).getMessage());
    assertEquals("min 2.0 is above max 1.0", assertThrows(IllegalArgumentException.class,
        () -> new ColumnStatistics(1, 0, 2, 1, 0)).getMessage());
    assertEquals("distinct and null counts are at least 0: NaN, 0.0", assertThrows(IllegalArgumentException.class,
        () -> new ColumnStatistics(Double.NaN, 0, 1, 2, 0)).getMessage());
  }
}
