package dev.memwall.join.pipeline;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.relational.Relation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Pipelined hash joins ({@link HashProbeStage}, through {@link Relation}'s default joins) against
 * nested loops, on inputs the relational properties do not reach: tables of many batches of uneven
 * sizes (empty ones included), one to three key columns (int32, int64 and date: exact hashes and the
 * wide, confirmed ones), string columns plain or dictionary-encoded on either side, probe inputs of
 * several thousand rows whose pairs fill many output chunks, build sides scanned or collected first
 * (their encoded strings collected as codes), and what runs after the probe: a LIKE filter and a
 * grouping on the strings the join passes on as codes.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class HashProbeStageProperties {
  static final String[] WORDS = {"alpha", "beta1", "gamma", "delta1", "", "eps11"};
  /** The most joined rows a chain case may produce: its expected rows are listed on a 2 GiB test heap. */
  private static final long MAX_CHAIN_ROWS = 400_000;

  /** A row: keys a (int32), b (int64), c (date, days), value v, text s; null fields are SQL nulls. */
  record Row(Integer a, Long b, Integer c, long v, String s) {
    Object key(int i) {
      return switch (i) {
        case 0 -> a;
        case 1 -> b;
        default -> c;
      };
    }
  }

  @Property(tries = 80)
  void pipelinedJoinsOfManyBatchesMatchNestedLoops(@ForAll JoinType type,
      @ForAll @IntRange(min = 1, max = 3) int keyCount, @ForAll @IntRange(min = 0, max = 3000) int leftRows,
      @ForAll @IntRange(min = 0, max = 400) int rightRows, @ForAll @IntRange(min = 1, max = 50) int domain,
      @ForAll boolean leftDictionary, @ForAll boolean rightDictionary, @ForAll boolean collectRight,
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 2) int threads, EngineMemory memory) {
    Random random = new Random(seed);
    List<Row> left = rows(random, leftRows, domain);
    List<Row> right = rows(random, rightRows, domain);
    List<String> keys = List.of("a", "b", "c").subList(0, keyCount);
    boolean semiOrAnti = type == JoinType.SEMI || type == JoinType.ANTI;

    List<List<Object>> expected = new ArrayList<>();
    Map<List<Object>, Long> expectedGroups = new HashMap<>();
    for (Row l : left) {
      int matches = 0;
      for (Row r : right) {
        if (keysEqual(l, r, keyCount)) {
          matches++;
          if (!semiOrAnti) {
            expected.add(Arrays.asList(l.s(), l.v(), r.s(), r.v()));
          }
        }
      }
      if (matches == 0 && type.reportsUnmatched() || matches > 0 && type == JoinType.SEMI) {
        expected.add(semiOrAnti ? Arrays.asList(l.s(), l.v()) : Arrays.asList(l.s(), l.v(), null, null));
      }
    }
    for (List<Object> row : expected) {
      Object text = row.get(semiOrAnti ? 0 : 2);
      if (text != null && ((String) text).contains("1")) {
        expectedGroups.merge(semiOrAnti ? List.of(row.get(0)) : Arrays.asList(row.get(0), row.get(2)), 1L, Long::sum);
      }
    }

    ExecutionContext context = new ExecutionContext(memory, threads);
    try (Table l = table(memory, random, left, "l", leftDictionary);
        Table r = table(memory, random, right, "r", rightDictionary)) {
      List<String> leftKeys = keys.stream().map(k -> "l" + k).toList();
      List<String> rightKeys = keys.stream().map(k -> "r" + k).toList();
      List<String> outputs = semiOrAnti ? List.of("ls", "lv") : List.of("ls", "lv", "rs", "rv");
      // a filter that keeps every row makes the build side a collected table (its strings collected
      // as codes when encoded) instead of the scanned one
      java.util.function.Supplier<Relation> rightInput = () -> collectRight
          ? Relation.scan(r, context).filter(col("rv").ge(lit(0))) : Relation.scan(r, context);
      try (Table actual = join(Relation.scan(l, context), rightInput.get(), type)
          .on(leftKeys, rightKeys).keep(outputs.toArray(String[]::new)).toTable()) {
        assertEquals(sorted(expected), rows(actual), type + " on " + keys);
      }
      String text = semiOrAnti ? "ls" : "rs";
      List<String> groupKeys = semiOrAnti ? List.of("ls") : List.of("ls", "rs");
      try (Table grouped = join(Relation.scan(l, context), rightInput.get(), type)
          .on(leftKeys, rightKeys).keep(outputs.toArray(String[]::new))
          .filter(col(text).like("%1%"))
          .aggregate(groupKeys.stream().map(k -> col(k).as(k)).toList(), Aggregate.countStar("n"))
          .toTable()) {
        List<List<Object>> groups = new ArrayList<>();
        expectedGroups.forEach((key, count) -> {
          List<Object> row = new ArrayList<>(key);
          row.add(count);
          groups.add(row);
        });
        assertEquals(sorted(groups), rows(grouped), "grouped on the joined strings");
      }
    }
  }

  @Property(tries = 40)
  void aChainOfProbesPassesStringsOnAsCodes(@ForAll @IntRange(min = 0, max = 2500) int leftRows,
      @ForAll @IntRange(min = 0, max = 60) int middleRows, @ForAll @IntRange(min = 0, max = 60) int rightRows,
      @ForAll @IntRange(min = 1, max = 30) int domain, @ForAll boolean dictionaries, @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 2) int threads, EngineMemory memory) {
    Random random = new Random(seed);
    List<Row> left = rows(random, leftRows, domain);
    List<Row> middle = rows(random, middleRows, domain);
    List<Row> right = rows(random, rightRows, domain);
    // half the keys are 0, so a small domain multiplies the three sides: skip the cases whose nested
    // loops alone would hold millions of rows on the heap
    long chainRows = chainRows(left, middle, right);
    Assume.that(chainRows <= MAX_CHAIN_ROWS);
    List<List<Object>> expected = new ArrayList<>();
    for (Row l : left) {
      for (Row m : middle) {
        if (l.a() == null || !l.a().equals(m.a())) {
          continue;
        }
        boolean matched = false;
        for (Row r : right) {
          if (m.b() != null && m.b().equals(r.b())) {
            matched = true;
            expected.add(Arrays.asList(l.s(), m.s(), r.s(), l.v() + r.v()));
          }
        }
        if (!matched) {
          expected.add(Arrays.asList(l.s(), m.s(), null, null));
        }
      }
    }
    ExecutionContext context = new ExecutionContext(memory, threads);
    try (Table l = table(memory, random, left, "l", dictionaries);
        Table m = table(memory, random, middle, "m", !dictionaries);
        Table r = table(memory, random, right, "r", dictionaries);
        Table actual = Relation.scan(l, context)
            .join(Relation.scan(m, context)).on("la", "ma").keep("ls", "lv", "ms", "mb")
            .leftOuterJoin(Relation.scan(r, context)).on("mb", "rb").keep("ls", "ms", "rs", "lv", "rv")
            .project(col("ls").as("ls"), col("ms").as("ms"), col("rs").as("rs"), col("lv").add(col("rv")).as("sum"))
            .toTable()) {
      assertEquals(expected.size(), chainRows, "the count that bounds the case");
      assertEquals(sorted(expected), rows(actual));
    }
  }

  /**
   * The stage given a cache its Bloom filter just fits: probes find the same partners whether or not
   * sampling decided to filter (probe sides of up to 60K rows, so both before
   * and after the decision), and a selective join with enough chunks does filter.
   */
  @Property(tries = 40)
  void filteredProbesMatchNestedLoops(@ForAll JoinType type, @ForAll @IntRange(min = 1, max = 3) int keyCount,
      @ForAll @IntRange(min = 0, max = 60_000) int leftRows, @ForAll @IntRange(min = 1, max = 300) int rightRows,
      @ForAll @IntRange(min = 1, max = 400) int domain, @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 2) int threads, EngineMemory memory) {
    Random random = new Random(seed);
    List<Row> left = rows(random, leftRows, domain);
    List<Row> right = rows(random, rightRows, domain);
    boolean semiOrAnti = type == JoinType.SEMI || type == JoinType.ANTI;
    List<String> keys = List.of("a", "b", "c").subList(0, keyCount);
    java.util.Map<List<Object>, Integer> partners = new HashMap<>();
    for (Row r : right) {
      List<Object> key = keyOf(r, keyCount);
      if (!key.contains(null)) {
        partners.merge(key, 1, Integer::sum);
      }
    }
    long expectedRows = 0;
    long expectedSum = 0;
    for (Row l : left) {
      List<Object> key = keyOf(l, keyCount);
      int matches = key.contains(null) ? 0 : partners.getOrDefault(key, 0);
      long rows = switch (type) {
        case INNER -> matches;
        case LEFT_OUTER -> Math.max(1, matches);
        case SEMI -> matches > 0 ? 1 : 0;
        case ANTI -> matches > 0 ? 0 : 1;
      };
      expectedRows += rows;
      expectedSum += rows * l.v();
    }
    ExecutionContext context = new ExecutionContext(memory, threads);
    try (Table l = table(memory, random, left, "l", false);
        Table r = table(memory, random, right, "r", false)) {
      List<ColumnType> keyTypes = List.of(ColumnType.INT32, ColumnType.INT64, ColumnType.DATE).subList(0, keyCount);
      long cacheBytes = dev.memwall.core.bloom.RegisterBlockedBloomFilter.bytesFor(right.size(), KeyFilter.BITS_PER_KEY);
      try (HashProbeStage stage = HashProbeStage.build(r, keys.stream().map(k -> "r" + k).toList(), type,
              keys.stream().map(k -> "l" + k).toList(), keyTypes, semiOrAnti ? null : List.of("lv"),
              semiOrAnti ? List.of() : List.of("rv"), cacheBytes, context);
          Table actual = dev.memwall.core.plan.Plan.scan(l).stage(stage)
              .aggregate(List.of(), Aggregate.countStar("rows"), Aggregate.sum(col("lv"), "total"))
              .execute(context)) {
        long keyed = left.stream().filter(row -> !keyOf(row, keyCount).contains(null)).count();
        long matching = left.stream().filter(row -> partners.containsKey(keyOf(row, keyCount))).count();
        if (leftRows >= 2 * KeyFilter.SAMPLE_CHUNKS * 1024 && matching * 8 < keyed) {
          assertEquals(true, stage.filtered(), "a selective join over " + leftRows + " rows did not filter");
        }
        Batch batch = actual.batches().getFirst();
        assertEquals(expectedRows, batch.column(0).getObject(0), type + " on " + keys);
        Object total = batch.column(1).getObject(0);
        assertEquals(expectedRows == 0 ? null : expectedSum, total == null ? null : ((Number) total).longValue());
      }
    }
  }

  static List<Object> keyOf(Row row, int keyCount) {
    List<Object> key = new ArrayList<>();
    for (int i = 0; i < keyCount; i++) {
      key.add(row.key(i));
    }
    return key;
  }

  private static Relation.JoinSpec join(Relation left, Relation right, JoinType type) {
    return switch (type) {
      case INNER -> left.join(right);
      case LEFT_OUTER -> left.leftOuterJoin(right);
      case SEMI -> left.semiJoin(right);
      case ANTI -> left.antiJoin(right);
    };
  }

  private static boolean keysEqual(Row l, Row r, int keyCount) {
    for (int i = 0; i < keyCount; i++) {
      if (l.key(i) == null || !Objects.equals(l.key(i), r.key(i))) {
        return false;
      }
    }
    return true;
  }

  /** Rows over a small key domain, half of them on one key, a few at the types' limits, some nulls. */
  static List<Row> rows(Random random, int count, int domain) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int k = random.nextBoolean() ? 0 : random.nextInt(domain);
      boolean limit = random.nextInt(20) == 0;
      Integer a = random.nextInt(25) == 0 ? null : limit ? Integer.MIN_VALUE : k;
      Long b = random.nextInt(25) == 0 ? null : limit ? Long.MAX_VALUE : k * 3L - 7;
      Integer c = random.nextInt(25) == 0 ? null : limit ? Integer.MAX_VALUE : 9000 + k % 7;
      String s = random.nextInt(10) == 0 ? null : WORDS[random.nextInt(WORDS.length)];
      rows.add(new Row(a, b, c, random.nextInt(1000), s));
    }
    return rows;
  }

  /**
   * The rows as a table with columns {prefix}a, b, c, v, s, cut into batches of random sizes (some
   * empty); s plain, or dictionary-encoded with one dictionary for every batch.
   */
  static Table table(EngineMemory memory, Random random, List<Row> rows, String prefix, boolean dictionary) {
    DictionaryEncoding encoding = dictionary ? new DictionaryEncoding(1, false, new ArrowType.Int(16, true)) : null;
    Schema schema = new Schema(List.of(
        ColumnType.INT32.toField(prefix + "a", true, null),
        ColumnType.INT64.toField(prefix + "b", true, null),
        ColumnType.DATE.toField(prefix + "c", true, null),
        ColumnType.INT64.toField(prefix + "v", false, null),
        ColumnType.STRING.toField(prefix + "s", true, encoding)));
    Map<Long, Dictionary> dictionaries = new HashMap<>();
    if (dictionary) {
      VarCharVector words = new VarCharVector(prefix + "-words", memory.arrow());
      words.allocateNew();
      for (int i = 0; i < WORDS.length; i++) {
        words.setSafe(i, WORDS[i].getBytes(StandardCharsets.UTF_8));
      }
      words.setValueCount(WORDS.length);
      dictionaries.put(1L, new Dictionary(words, encoding));
    }
    List<VectorSchemaRoot> roots = new ArrayList<>();
    int at = 0;
    while (at < rows.size() || roots.isEmpty()) {
      int size = Math.min(rows.size() - at, random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(700));
      VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow());
      root.allocateNew();
      for (int i = 0; i < size; i++) {
        Row row = rows.get(at + i);
        set((IntVector) root.getVector(0), i, row.a());
        if (row.b() == null) {
          ((BigIntVector) root.getVector(1)).setNull(i);
        } else {
          ((BigIntVector) root.getVector(1)).setSafe(i, row.b());
        }
        if (row.c() == null) {
          ((DateDayVector) root.getVector(2)).setNull(i);
        } else {
          ((DateDayVector) root.getVector(2)).setSafe(i, row.c());
        }
        ((BigIntVector) root.getVector(3)).setSafe(i, row.v());
        if (row.s() == null) {
          if (dictionary) {
            ((SmallIntVector) root.getVector(4)).setNull(i);
          } else {
            ((VarCharVector) root.getVector(4)).setNull(i);
          }
        } else if (dictionary) {
          ((SmallIntVector) root.getVector(4)).setSafe(i, List.of(WORDS).indexOf(row.s()));
        } else {
          ((VarCharVector) root.getVector(4)).setSafe(i, row.s().getBytes(StandardCharsets.UTF_8));
        }
      }
      root.setRowCount(size);
      roots.add(root);
      at += size;
    }
    return Table.own(schema, roots, dictionaries);
  }

  private static void set(IntVector vector, int i, Integer value) {
    if (value == null) {
      vector.setNull(i);
    } else {
      vector.setSafe(i, value);
    }
  }

  static List<String> rows(Table table) {
    List<String> rows = new ArrayList<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        Object[] values = new Object[table.schema().getFields().size()];
        for (int c = 0; c < values.length; c++) {
          Object value = batch.column(c).getObject(r);
          values[c] = value instanceof Number n ? (Object) n.longValue() : value;
        }
        rows.add(Arrays.toString(values));
      }
    }
    rows.sort(null);
    return rows;
  }

  /** The row count of left JOIN middle ON a LEFT OUTER JOIN right ON b, counted without listing the rows. */
  private static long chainRows(List<Row> left, List<Row> middle, List<Row> right) {
    Map<Long, Long> rightByB = new HashMap<>();
    for (Row r : right) {
      if (r.b() != null) {
        rightByB.merge(r.b(), 1L, Long::sum);
      }
    }
    Map<Integer, Long> chainsByA = new HashMap<>();
    for (Row m : middle) {
      if (m.a() != null) {
        long matches = m.b() == null ? 0 : rightByB.getOrDefault(m.b(), 0L);
        chainsByA.merge(m.a(), Math.max(1, matches), Long::sum);
      }
    }
    long rows = 0;
    for (Row l : left) {
      rows += l.a() == null ? 0 : chainsByA.getOrDefault(l.a(), 0L);
    }
    return rows;
  }

  static List<String> sorted(List<List<Object>> rows) {
    List<String> out = new ArrayList<>();
    for (List<Object> row : rows) {
      out.add(Arrays.toString(row.stream().map(v -> v instanceof Number n ? (Object) n.longValue() : v).toArray()));
    }
    out.sort(null);
    return out;
  }
}
