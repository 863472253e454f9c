package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.caseWhen;
import static dev.memwall.core.expr.Expr.coalesce;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.decimal;
import static dev.memwall.core.expr.Expr.isNull;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.not;
import static dev.memwall.core.expr.Expr.or;
import static dev.memwall.core.expr.Expr.substring;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.AggregateLayout;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Plans against a row-at-a-time Java reference on random tables: several batches (some empty),
 * nulls in keys and values, skewed and duplicate keys, one and two threads.
 */
class PlanProperties {
  private static final String[] FLAGS = {"A", "N", "R"};
  private static final String[] NAMES = {"", "green apple", "forest green", "ivory", "grün", "promo tin"};

  /** One generated row; null fields are SQL nulls. */
  record Row(Integer key, String flag, Long price, int discount, LocalDate day, String name) {}

  @Property(tries = 40)
  void groupedAggregateMatchesReference(@ForAll long seed, @ForAll @IntRange(min = 1, max = 2) int threads,
      @ForAll AggregateLayout layout, @ForAll boolean clustered) {
    List<Row> rows = randomRows(new Random(seed));
    if (clustered) { // runs of equal keys, as lineitem is clustered on its order key
      rows.sort(Comparator.comparing(Row::key, Comparator.nullsFirst(Comparator.naturalOrder())));
    }
    long before = OffHeapBuffer.liveBuffers();
    try (EngineMemory memory = EngineMemory.create("plan-property")) {
      try (Table table = toTable(rows, memory);
          Table result = Plan.scan(table)
              .filter(and(col("day").between(date("1995-01-01"), date("1996-06-30")), col("discount").le(decimal("0.08"))))
              .project(col("key").as("key"), col("flag").as("flag"), col("price").as("price"),
                  col("price").mul(lit(1).sub(col("discount"))).as("net"), col("day").as("day"))
              .aggregate(List.of(col("key").as("key"), col("flag").as("flag")),
                  Aggregate.sum(col("price"), "sum_price"),
                  Aggregate.sum(col("net"), "sum_net"),
                  Aggregate.countStar("rows"),
                  Aggregate.count(col("price"), "prices"),
                  Aggregate.min(col("day"), "first_day"),
                  Aggregate.max(col("price"), "max_price"))
              .orderBy(SortKey.asc("key"), SortKey.desc("flag"))
              .execute(new ExecutionContext(memory, threads, layout))) {
        assertEquals(referenceGroups(rows), actual(result));
      }
    }
    assertEquals(before, OffHeapBuffer.liveBuffers());
  }

  /**
   * Tens of thousands of groups, each in several workers' morsels: the workers' tables grow large
   * and their merge folds many groups, a chunk of lookups at a time.
   */
  @Property(tries = 8)
  void manyGroupsMergeLikeReference(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3) int threads) {
    Random random = new Random(seed);
    int groups = (1 << 16) + random.nextInt(40_000);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 3 * groups; i++) {
      Integer key = random.nextInt(200) == 0 ? null : random.nextInt(groups);
      String flag = FLAGS[random.nextInt(FLAGS.length)];
      Long price = random.nextInt(50) == 0 ? null : (long) random.nextInt(1000);
      rows.add(new Row(key, flag, price, 0, LocalDate.of(1995, 1, 1), null));
    }
    Map<List<Object>, long[]> expected = new java.util.HashMap<>();
    for (Row row : rows) {
      long[] a = expected.computeIfAbsent(java.util.Arrays.asList(row.key(), row.flag()), k -> new long[] {0, 0, 0});
      a[0]++;
      if (row.price() != null) {
        a[1] += row.price();
        a[2]++;
      }
    }
    try (EngineMemory memory = EngineMemory.create("many-groups");
        Table table = toTable(rows, memory);
        Table result = Plan.scan(table)
            .aggregate(List.of(col("key").as("key"), col("flag").as("flag")),
                Aggregate.countStar("rows"), Aggregate.sum(col("price"), "total"))
            .execute(new ExecutionContext(memory, threads))) {
      assertEquals(expected.size(), result.rowCount());
      for (Batch batch : result.batches()) {
        for (int r = 0; r < batch.rowCount(); r++) {
          Object key = batch.column(0).getObject(r);
          long[] a = expected.get(java.util.Arrays.asList(key == null ? null : ((Number) key).intValue(),
              batch.column(1).getObject(r)));
          assertEquals(a[0], batch.column(2).getObject(r), "rows of group " + key);
          assertEquals(a[2] == 0 ? null : BigDecimal.valueOf(a[1], 2), batch.column(3).getObject(r), "total of " + key);
        }
      }
    }
  }

  /**
   * Grouping on a dictionary-coded string alone, the path that maps the chunk's codes straight to
   * groups: behind a filter keeping most rows (every chunk's codes read in one sequential pass) or few
   * (the kept rows' codes gathered), with null flags in some chunks, against counting by hand.
   */
  @Property(tries = 30)
  void dictionaryKeyGroupsBehindFiltersLikeReference(@ForAll long seed, @ForAll boolean selective,
      @ForAll @IntRange(min = 1, max = 2) int threads) {
    List<Row> rows = randomRows(new Random(seed));
    int maxDiscount = selective ? 0 : 9;
    Map<String, long[]> expected = new java.util.HashMap<>();
    for (Row row : rows) {
      if (row.discount() <= maxDiscount) {
        long[] a = expected.computeIfAbsent(row.flag() == null ? "null" : row.flag(), k -> new long[] {0, 0});
        a[0]++;
        a[1] += row.discount();
      }
    }
    try (EngineMemory memory = EngineMemory.create("dictionary-groups");
        Table table = toTable(rows, memory);
        Table result = Plan.scan(table)
            .filter(col("discount").le(decimal(selective ? "0.00" : "0.09")))
            .aggregate(List.of(col("flag").as("flag")), Aggregate.countStar("rows"),
                Aggregate.sum(col("discount"), "discounts"))
            .execute(new ExecutionContext(memory, threads))) {
      Map<String, long[]> actual = new java.util.HashMap<>();
      for (Batch batch : result.batches()) {
        for (int r = 0; r < batch.rowCount(); r++) {
          Object flag = batch.column(0).getObject(r);
          actual.put(flag == null ? "null" : flag.toString(), new long[] {((Number) batch.column(1).getObject(r)).longValue(),
              ((BigDecimal) batch.column(2).getObject(r)).movePointRight(2).longValueExact()});
        }
      }
      assertEquals(expected.keySet(), actual.keySet());
      expected.forEach((flag, a) -> assertArrayEquals(a, actual.get(flag), "flag " + flag));
    }
  }

  /** How the rows of {@link #singleKeyAggregationOfOrderedAndUnorderedInput} are ordered by key. */
  enum KeyOrder { ASCENDING, ASCENDING_THEN_ONE_BACK, DESCENDING, RANDOM }

  /**
   * Grouping on one integral key, whose groups need no hash table while the key only grows (each
   * worker's morsels of ascending input) and whose workers' groups then merge as a merge join: against
   * the reference for ascending input with runs, ascending input broken once, descending and random
   * input, with and without null keys, on 1-3 threads and across the many-group sizes.
   */
  @Property(tries = 60)
  void singleKeyAggregationOfOrderedAndUnorderedInput(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3) int threads,
      @ForAll KeyOrder order, @ForAll boolean nulls) {
    Random random = new Random(seed);
    int n = random.nextInt(4) == 0 ? random.nextInt(40) : random.nextInt(120_000);
    List<Integer> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(nulls && random.nextInt(500) == 0 ? null : random.nextInt(Math.max(1, n / (1 + random.nextInt(4)))));
    }
    Comparator<Integer> ascending = Comparator.nullsLast(Comparator.naturalOrder());
    switch (order) {
      case ASCENDING -> keys.sort(ascending);
      case ASCENDING_THEN_ONE_BACK -> {
        keys.sort(ascending);
        if (n > 2) {
          keys.add(random.nextInt(n), keys.get(0)); // one small key late in the input
        }
      }
      case DESCENDING -> keys.sort(ascending.reversed());
      case RANDOM -> { }
    }
    List<Row> rows = new ArrayList<>();
    Map<Integer, long[]> expected = new java.util.HashMap<>();
    for (Integer key : keys) {
      long price = random.nextInt(1000);
      rows.add(new Row(key, "A", price, 0, LocalDate.of(1995, 1, 1), null));
      long[] a = expected.computeIfAbsent(key, k -> new long[2]);
      a[0]++;
      a[1] += price;
    }
    try (EngineMemory memory = EngineMemory.create("ordered-groups");
        Table table = toTable(rows, memory);
        Table result = Plan.scan(table)
            .aggregate(List.of(col("key").as("key")), Aggregate.countStar("rows"), Aggregate.sum(col("price"), "total"))
            .execute(new ExecutionContext(memory, threads))) {
      assertEquals(expected.size(), result.rowCount(), "groups");
      for (Batch batch : result.batches()) {
        for (int r = 0; r < batch.rowCount(); r++) {
          Object key = batch.column(0).getObject(r);
          long[] a = expected.get(key == null ? null : ((Number) key).intValue());
          assertEquals(a[0], batch.column(1).getObject(r), "rows of " + key);
          assertEquals(BigDecimal.valueOf(a[1], 2), batch.column(2).getObject(r), "total of " + key);
        }
      }
    }
  }

  /**
   * The ordered merge with int64 keys up to the type's limits, ascending in runs, on 1-3 threads:
   * enough groups that the workers' groups are merged in several key ranges, cut at keys.
   */
  @Property(tries = 10)
  void orderedMergeOfInt64KeysAtTheLimits(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3) int threads) {
    Random random = new Random(seed);
    List<Long> keys = new ArrayList<>(List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, Long.MAX_VALUE - 1,
        Long.MAX_VALUE));
    int distinct = 10_000 + random.nextInt(20_000);
    for (int i = 0; i < distinct; i++) {
      keys.add(random.nextLong());
    }
    List<Long> runs = new ArrayList<>();
    for (Long key : keys) {
      for (int r = random.nextInt(3); r >= 0; r--) {
        runs.add(key);
      }
    }
    runs.sort(Comparator.naturalOrder());
    Map<Long, Long> expected = new java.util.TreeMap<>();
    List<Row> rows = new ArrayList<>();
    for (Long key : runs) {
      rows.add(new Row(1, "A", key, 0, LocalDate.of(1995, 1, 1), null));
      expected.merge(key, 1L, Long::sum);
    }
    long before = OffHeapBuffer.liveBuffers();
    try (EngineMemory memory = EngineMemory.create("ordered-int64");
        Table table = toTable(rows, memory);
        Table result = Plan.scan(table)
            .aggregate(List.of(col("price").as("key")), Aggregate.countStar("rows"))
            .execute(new ExecutionContext(memory, threads))) {
      Map<Long, Long> actual = new java.util.TreeMap<>();
      for (Batch batch : result.batches()) {
        for (int r = 0; r < batch.rowCount(); r++) {
          long key = ((BigDecimal) batch.column(0).getObject(r)).unscaledValue().longValueExact();
          assertEquals(null, actual.put(key, (Long) batch.column(1).getObject(r)), "key " + key + " twice");
        }
      }
      assertEquals(expected, actual);
    }
    assertEquals(before, OffHeapBuffer.liveBuffers(), "off-heap buffers leaked");
  }

  @Property(tries = 40)
  void stringPredicatesCaseAndProjectionMatchReference(@ForAll long seed, @ForAll @IntRange(min = 1, max = 2) int threads) {
    List<Row> rows = randomRows(new Random(seed));
    try (EngineMemory memory = EngineMemory.create("plan-property");
        Table table = toTable(rows, memory);
        Table result = Plan.scan(table)
            .filter(or(col("name").like("%green%"), and(col("flag").in(lit("A"), lit("R")), not(col("name").like("_v%")))))
            .project(col("name").as("name"),
                caseWhen(col("flag").eq(lit("A")), col("price"), lit(0)).as("a_price"),
                col("discount").as("discount"))
            .execute(new ExecutionContext(memory, threads))) {
      List<List<Object>> expected = new ArrayList<>();
      for (Row row : rows) {
        boolean green = row.name() != null && row.name().contains("green");
        boolean flagged = row.flag() != null && (row.flag().equals("A") || row.flag().equals("R"));
        // SQL three-valued logic: LIKE on a null name is NULL, and so is NOT of it; the row is then
        // kept only if the other disjunct is TRUE.
        boolean notIv = row.name() != null && !(row.name().codePointCount(0, row.name().length()) >= 2
            && row.name().substring(row.name().offsetByCodePoints(0, 1)).startsWith("v"));
        if (green || (flagged && notIv)) {
          Object aPrice = "A".equals(row.flag()) ? (row.price() == null ? null : BigDecimal.valueOf(row.price(), 2))
              : BigDecimal.valueOf(0, 2);
          expected.add(java.util.Arrays.asList(row.name(), aPrice, BigDecimal.valueOf(row.discount(), 2)));
        }
      }
      List<List<Object>> actualRows = actual(result);
      Comparator<List<Object>> order = Comparator.comparing(Object::toString);
      expected.sort(order);
      actualRows.sort(order);
      assertEquals(expected, actualRows);
    }
  }

  /**
   * Predicates on a byte-coded dictionary column without nulls (the branch-free path over the codes),
   * on dense chunks and after another filter has thinned them.
   */
  @Property(tries = 40)
  void byteCodedDictionaryPredicatesMatchReference(@ForAll long seed, @ForAll @IntRange(min = 1, max = 2) int threads,
      @ForAll boolean thinned) {
    Random random = new Random(seed);
    List<Row> rows = new ArrayList<>();
    for (Row row : randomRows(random)) {
      rows.add(new Row(row.key(), FLAGS[random.nextInt(FLAGS.length)], row.price(), row.discount(), row.day(),
          row.name()));
    }
    try (EngineMemory memory = EngineMemory.create("plan-property");
        Table table = toTable(rows, memory);
        Table result = Plan.scan(table)
            .filter(thinned ? col("discount").le(decimal("0.05")) : col("discount").ge(decimal("0.00")))
            .filter(or(col("flag").eq(lit("N")), not(col("flag").in(lit("N"), lit("R")))))
            .project(col("flag").as("flag"), col("discount").as("discount"))
            .execute(new ExecutionContext(memory, threads))) {
      List<String> expected = new ArrayList<>();
      for (Row row : rows) {
        if ((!thinned || row.discount() <= 5) && !row.flag().equals("R")) {
          expected.add(row.flag() + "/" + row.discount());
        }
      }
      List<String> actualRows = new ArrayList<>();
      for (List<Object> row : PlanProperties.<List<List<Object>>>actual(result)) {
        actualRows.add(row.get(0) + "/" + ((BigDecimal) row.get(1)).movePointRight(2).intValue());
      }
      expected.sort(null);
      actualRows.sort(null);
      assertEquals(expected, actualRows);
    }
  }

  @Property(tries = 40)
  void substringFiltersAndProjectsLikeReference(@ForAll long seed, @ForAll @IntRange(min = 1, max = 2) int threads,
      @ForAll @IntRange(min = 1, max = 14) int start, @ForAll @IntRange(min = 0, max = 4) int length) {
    List<Row> rows = randomRows(new Random(seed));
    List<String> wanted = List.of("gr", "iv", "", "ü", "n");
    try (EngineMemory memory = EngineMemory.create("plan-property");
        Table table = toTable(rows, memory);
        Table result = Plan.scan(table)
            .filter(or(substring(col("name"), start, 2).in(lit("gr"), lit("iv"), lit(""), lit("ü"), lit("n")),
                substring(col("flag"), 1, 1).eq(lit("A"))))
            .project(substring(col("name"), start, length).as("part"), substring(col("flag"), start, length).as("flag_part"))
            .execute(new ExecutionContext(memory, threads))) {
      List<List<Object>> expected = new ArrayList<>();
      for (Row row : rows) {
        boolean nameMatches = row.name() != null && wanted.contains(codePointSubstring(row.name(), start, 2));
        if (nameMatches || "A".equals(row.flag())) {
          expected.add(java.util.Arrays.asList(
              row.name() == null ? null : codePointSubstring(row.name(), start, length),
              row.flag() == null ? null : codePointSubstring(row.flag(), start, length)));
        }
      }
      List<List<Object>> actualRows = new ArrayList<>();
      for (List<Object> row : PlanProperties.<List<List<Object>>>actual(result)) {
        actualRows.add(row.stream().map(v -> (Object) (v == null ? null : v.toString())).toList());
      }
      Comparator<List<Object>> order = Comparator.comparing(Object::toString);
      expected.sort(order);
      actualRows.sort(order);
      assertEquals(expected, actualRows);
    }
  }

  @Property(tries = 40)
  void isNullAndCoalesceMatchReference(@ForAll long seed, @ForAll @IntRange(min = 1, max = 2) int threads) {
    List<Row> rows = randomRows(new Random(seed));
    try (EngineMemory memory = EngineMemory.create("plan-property");
        Table table = toTable(rows, memory);
        Table result = Plan.scan(table)
            .filter(or(isNull(col("key")), not(isNull(col("name"))), isNull(col("flag"))))
            .project(coalesce(col("price"), lit(-1)).as("price"), coalesce(col("key"), lit(7)).as("key"))
            .execute(new ExecutionContext(memory, threads))) {
      List<List<Object>> expected = new ArrayList<>();
      for (Row row : rows) {
        if (row.key() == null || row.name() != null || row.flag() == null) {
          expected.add(List.of(row.price() == null ? BigDecimal.valueOf(-100, 2) : BigDecimal.valueOf(row.price(), 2),
              row.key() == null ? 7L : (long) row.key()));
        }
      }
      List<List<Object>> actualRows = new ArrayList<>();
      for (List<Object> row : PlanProperties.<List<List<Object>>>actual(result)) {
        actualRows.add(List.of(row.get(0), ((Number) row.get(1)).longValue()));
      }
      Comparator<List<Object>> order = Comparator.comparing(Object::toString);
      expected.sort(order);
      actualRows.sort(order);
      assertEquals(expected, actualRows);
    }
  }

  @org.junit.jupiter.api.Test
  void isNullRejectsExpressions() {
    try (EngineMemory memory = EngineMemory.create("plan-property");
        Table table = toTable(List.of(), memory)) {
      org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Plan.scan(table)
          .filter(isNull(col("price").add(lit(1)))).execute(new ExecutionContext(memory, 1)).close());
    }
  }

  @org.junit.jupiter.api.Test
  void substringRejectsBadBounds() {
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> substring(col("name"), 0, 2));
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> substring(col("name"), 1, -1));
  }

  /** SQL SUBSTRING in code points, clipped to the string. */
  private static String codePointSubstring(String value, int start, int length) {
    int[] points = value.codePoints().toArray();
    int from = Math.min(points.length, start - 1);
    int to = Math.min(points.length, from + length);
    return new String(points, from, to - from);
  }

  private static List<Row> randomRows(Random random) {
    int n = random.nextInt(5) == 0 ? random.nextInt(3) : random.nextInt(5000);
    List<Row> rows = new ArrayList<>();
    int keys = 1 + random.nextInt(random.nextBoolean() ? 3 : 300);
    for (int i = 0; i < n; i++) {
      Integer key = random.nextInt(20) == 0 ? null
          : random.nextBoolean() ? 0 : (random.nextBoolean() ? Integer.MIN_VALUE + random.nextInt(2) : random.nextInt(keys));
      String flag = random.nextInt(25) == 0 ? null : FLAGS[random.nextInt(FLAGS.length)];
      Long price = random.nextInt(15) == 0 ? null : (long) random.nextInt(10_000_000);
      int discount = random.nextInt(11);
      LocalDate day = LocalDate.of(1994, 1, 1).plusDays(random.nextInt(1200));
      String name = random.nextInt(30) == 0 ? null : NAMES[random.nextInt(NAMES.length)];
      rows.add(new Row(key, flag, price, discount, day, name));
    }
    return rows;
  }

  private static Map<List<Object>, List<Object>> referenceGroups(List<Row> rows) {
    Map<List<Object>, long[]> acc = new TreeMap<>(Comparator.comparing((List<Object> k) -> (Integer) k.get(0),
        Comparator.nullsLast(Comparator.naturalOrder())).thenComparing(k -> (String) k.get(1),
        Comparator.nullsLast(Comparator.<String>reverseOrder())));
    Map<List<Object>, List<Object>> result = new java.util.LinkedHashMap<>();
    LocalDate from = LocalDate.parse("1995-01-01");
    LocalDate to = LocalDate.parse("1996-06-30");
    for (Row row : rows) {
      if (row.day().isBefore(from) || row.day().isAfter(to) || row.discount() > 8) {
        continue;
      }
      long[] a = acc.computeIfAbsent(java.util.Arrays.asList(row.key(), row.flag()),
          k -> new long[] {0, 0, 0, 0, Long.MAX_VALUE, Long.MIN_VALUE});
      a[2]++;
      if (row.price() != null) {
        a[0] += row.price();
        a[1] += row.price() * (100 - row.discount());
        a[3]++;
        a[5] = Math.max(a[5], row.price());
      }
      a[4] = Math.min(a[4], row.day().toEpochDay());
    }
    acc.forEach((key, a) -> result.put(key, java.util.Arrays.asList(
        a[3] == 0 ? null : BigDecimal.valueOf(a[0], 2),
        a[3] == 0 ? null : BigDecimal.valueOf(a[1], 4),
        a[2], a[3], LocalDate.ofEpochDay(a[4]),
        a[3] == 0 ? null : BigDecimal.valueOf(a[5], 2))));
    Map<List<Object>, List<Object>> flat = new java.util.LinkedHashMap<>();
    result.forEach((k, v) -> {
      List<Object> row = new ArrayList<>(k);
      row.addAll(v);
      flat.put(row, row);
    });
    return flat;
  }

  private static <T> T actual(Table result) {
    List<List<Object>> rows = new ArrayList<>();
    for (Batch batch : result.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (var column : batch.columns()) {
          Object value = column.getObject(r);
          row.add(value instanceof Integer i ? (Object) i : value);
        }
        rows.add(row);
      }
    }
    if (result.schema().getFields().size() == 8) {
      Map<List<Object>, List<Object>> keyed = new java.util.LinkedHashMap<>();
      for (List<Object> row : rows) {
        List<Object> normalized = new ArrayList<>(row);
        normalized.set(0, row.get(0) == null ? null : ((Number) row.get(0)).intValue());
        keyed.put(normalized, normalized);
      }
      @SuppressWarnings("unchecked")
      T t = (T) keyed;
      return t;
    }
    @SuppressWarnings("unchecked")
    T t = (T) rows;
    return t;
  }

  private static Table toTable(List<Row> rows, EngineMemory memory) {
    var encoding = new DictionaryEncoding(7, false, new ArrowType.Int(8, true));
    Schema schema = new Schema(List.of(
        ColumnType.INT32.toField("key", true, null),
        ColumnType.STRING.toField("flag", true, encoding),
        ColumnType.decimal(2).toField("price", true, null),
        ColumnType.decimal(2).toField("discount", false, null),
        ColumnType.DATE.toField("day", false, null),
        ColumnType.STRING.toField("name", true, null)));
    VarCharVector flags = new VarCharVector("flags", memory.arrow());
    flags.allocateNew();
    for (int i = 0; i < FLAGS.length; i++) {
      flags.setSafe(i, FLAGS[i].getBytes(StandardCharsets.UTF_8));
    }
    flags.setValueCount(FLAGS.length);
    List<VectorSchemaRoot> roots = new ArrayList<>();
    int at = 0;
    Random split = new Random(rows.size());
    while (at < rows.size() || roots.isEmpty()) {
      int size = Math.min(rows.size() - at, split.nextInt(4) == 0 ? 0 : 1 + split.nextInt(3000));
      VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow());
      root.allocateNew();
      for (int i = 0; i < size; i++) {
        Row row = rows.get(at + i);
        if (row.key() == null) {
          ((IntVector) root.getVector("key")).setNull(i);
        } else {
          ((IntVector) root.getVector("key")).setSafe(i, row.key());
        }
        if (row.flag() == null) {
          ((TinyIntVector) root.getVector("flag")).setNull(i);
        } else {
          ((TinyIntVector) root.getVector("flag")).setSafe(i, List.of(FLAGS).indexOf(row.flag()));
        }
        if (row.price() == null) {
          ((BigIntVector) root.getVector("price")).setNull(i);
        } else {
          ((BigIntVector) root.getVector("price")).setSafe(i, row.price());
        }
        ((BigIntVector) root.getVector("discount")).setSafe(i, row.discount());
        ((DateDayVector) root.getVector("day")).setSafe(i, (int) row.day().toEpochDay());
        if (row.name() == null) {
          ((VarCharVector) root.getVector("name")).setNull(i);
        } else {
          ((VarCharVector) root.getVector("name")).setSafe(i, row.name().getBytes(StandardCharsets.UTF_8));
        }
      }
      root.setRowCount(size);
      roots.add(root);
      at += size;
    }
    return Table.own(schema, roots, Map.of(7L, new Dictionary(flags, encoding)));
  }

}
