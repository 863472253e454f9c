package dev.memwall.core.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * ORDER BY / top-N against {@link List#sort} with a stable comparator as the reference (each key
 * in either direction, its nulls last or first; doubles with negative zero and NaN), over a string
 * column plain or dictionary-encoded (compared by the ranks of its entries, and kept encoded in the
 * result when its dictionary is small against the rows).
 */
class SorterProperties {
  private static final String[] WORDS = {"", "a", "ab", "b", "é", "Z", "zz"};
  /** Negative zero ties with zero (SQL's order), NaN comes after every number. */
  private static final double[] DOUBLES = {0.0, -0.0, 1.0, 2.5, -3.0, Double.NaN};

  @Property(tries = 100)
  void sortsLikeAStableReference(@ForAll long seed, @ForAll boolean firstDescending,
      @ForAll boolean secondDescending, @ForAll boolean firstNullsFirst, @ForAll boolean secondNullsFirst,
      @ForAll @IntRange(min = 0, max = 300) int limit, @ForAll boolean encoded) {
    Random random = new Random(seed);
    int n = random.nextInt(250);
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(new Object[] {
          random.nextInt(8) == 0 ? null : (long) random.nextInt(5) - 2,
          random.nextInt(8) == 0 ? null : WORDS[random.nextInt(WORDS.length)],
          DOUBLES[random.nextInt(DOUBLES.length)], (long) i});
    }
    long before = OffHeapBuffer.liveBuffers();
    try (EngineMemory memory = EngineMemory.create("sort");
        Table table = table(rows, encoded, memory);
        Table sorted = Sorter.sort(table, List.of(new SortKey("k", firstDescending, firstNullsFirst),
            new SortKey("s", secondDescending, secondNullsFirst), SortKey.desc("d")), limit, memory)) {
      Comparator<Object[]> order = Comparator
          .comparing((Object[] r) -> (Long) r[0], nulls(firstDescending, firstNullsFirst))
          .thenComparing(r -> (String) r[1], nulls(secondDescending, secondNullsFirst))
          .thenComparing(r -> (Double) r[2], (Double x, Double y) -> x.doubleValue() == y.doubleValue() ? 0
              : Double.compare(y, x));
      List<Object[]> expected = new ArrayList<>(rows);
      expected.sort(order);
      List<String> expectedText = expected.stream().limit(limit).map(Arrays::toString).toList();
      assertEquals(expectedText, rowsOf(sorted));
    }
    assertEquals(before, OffHeapBuffer.liveBuffers());
  }

  /**
   * Keys that pack into a long a row ({@link PackedSortKeys}: a small integer range and a ranked
   * dictionary, with nulls) or, with a long's limits among the integers, do not: the same order as
   * the stable reference either way, ties in input order; and the packing is taken exactly where the
   * range fits.
   */
  @Property(tries = 100)
  void packedKeysSortLikeAStableReference(@ForAll long seed, @ForAll boolean firstDescending,
      @ForAll boolean secondDescending, @ForAll boolean firstNullsFirst, @ForAll boolean secondNullsFirst,
      @ForAll boolean limits) {
    Random random = new Random(seed);
    int n = random.nextInt(250);
    long[] extremes = {Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1};
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Long key = random.nextInt(8) == 0 ? null
          : limits && random.nextInt(4) == 0 ? extremes[random.nextInt(extremes.length)] : (long) random.nextInt(5) - 2;
      rows.add(new Object[] {key, random.nextInt(8) == 0 ? null : WORDS[random.nextInt(WORDS.length)], 0.0, (long) i});
    }
    try (EngineMemory memory = EngineMemory.create("sort");
        Table table = table(rows, true, memory);
        Table sorted = Sorter.sort(table, List.of(new SortKey("k", firstDescending, firstNullsFirst),
            new SortKey("s", secondDescending, secondNullsFirst)), n, memory)) {
      List<Object[]> expected = new ArrayList<>(rows);
      expected.sort(Comparator.comparing((Object[] r) -> (Long) r[0], nulls(firstDescending, firstNullsFirst))
          .thenComparing(r -> (String) r[1], nulls(secondDescending, secondNullsFirst)));
      assertEquals(expected.stream().map(Arrays::toString).toList(), rowsOf(sorted));

      List<Batch> batches = table.batches();
      List<Long> refs = new ArrayList<>();
      for (int b = 0; b < batches.size(); b++) {
        for (int row = 0; row < batches.get(b).rowCount(); row++) {
          refs.add((long) b << 32 | row);
        }
      }
      List<BigInteger> keys = rows.stream().filter(r -> r[0] != null)
          .map(r -> BigInteger.valueOf((Long) r[0])).toList();
      BigInteger values = keys.isEmpty() ? BigInteger.ONE : keys.stream().reduce(BigInteger::max).orElseThrow()
          .subtract(keys.stream().reduce(BigInteger::min).orElseThrow()).add(BigInteger.ONE);
      values = keys.size() < n ? values.add(BigInteger.ONE) : values; // null's value
      int positionBits = BigInteger.valueOf(Math.max(0, n - 1)).bitLength();
      boolean fits = values.subtract(BigInteger.ONE).bitLength() + positionBits <= 63;
      assertEquals(fits || n <= 1, PackedSortKeys.sort(refs.stream().mapToLong(Long::longValue).toArray(),
          batches, new int[] {0}, new boolean[] {firstDescending}, new boolean[] {firstNullsFirst}, new int[1][]));
    }
  }

  private static <T extends Comparable<T>> Comparator<T> nulls(boolean descending, boolean nullsFirst) {
    Comparator<T> values = descending ? Comparator.<T>reverseOrder() : Comparator.<T>naturalOrder();
    return nullsFirst ? Comparator.nullsFirst(values) : Comparator.nullsLast(values);
  }

  private static List<String> rowsOf(Table table) {
    List<String> rows = new ArrayList<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        Object[] row = new Object[4];
        for (int c = 0; c < 4; c++) {
          row[c] = batch.column(c).getObject(r);
        }
        rows.add(Arrays.toString(row));
      }
    }
    return rows;
  }

  private static Table table(List<Object[]> rows, boolean encoded, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "s", "d", "id"),
        List.of(ColumnType.INT64, ColumnType.STRING, ColumnType.FLOAT64, ColumnType.INT64),
        new boolean[] {false, encoded, false, false}, memory.arrow())) {
      for (Object[] row : rows) {
        if (row[0] == null) {
          builder.appendNull();
        } else {
          builder.appendLong((Long) row[0]);
        }
        if (row[1] == null) {
          builder.appendNull();
        } else {
          builder.appendString(((String) row[1]).getBytes(StandardCharsets.UTF_8));
        }
        builder.appendDouble((Double) row[2]).appendLong((Long) row[3]).endRow();
      }
      return builder.build();
    }
  }
}
