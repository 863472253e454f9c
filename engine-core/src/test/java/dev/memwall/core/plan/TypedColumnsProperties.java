package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.decimal;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.not;
import static dev.memwall.core.expr.Expr.timestamp;
import static dev.memwall.core.expr.Expr.year;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TypedRows;
import dev.memwall.core.vector.TypedRows.Row;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Predicate;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;

/**
 * Filters and grouped aggregates over each Arrow type memwall reads through a view or a new kind
 * ({@link TypedRows}) agree with plain Java over the same rows: booleans as predicates, int8 and
 * int16 at their limits, float32 with NaN and -0.0, date64 and timestamps before 1970, timestamps
 * against constants of other units (and far beyond the column's range), the year of a zoned
 * timestamp in its zone, decimal(38,4), large_utf8 and its dictionaries, nulls everywhere; on
 * several batches and threads, with no buffer left behind.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class TypedColumnsProperties {
  private static final ZoneId NEW_YORK = ZoneId.of(TypedRows.NEW_YORK);

  @Property(tries = 25)
  void filtersAndAggregatesAgreeWithPlainJava(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3) int threads,
      EngineMemory memory) {
    Random random = new Random(seed);
    List<Row> first = TypedRows.random(random, random.nextInt(1500));
    List<Row> second = TypedRows.random(random, random.nextInt(1500));
    List<Row> rows = new ArrayList<>(first);
    rows.addAll(second);
    Dictionary dictionary = TypedRows.dictionary(memory.arrow());
    try (var values = dictionary.getVector();
        VectorSchemaRoot a = TypedRows.root(first, memory.arrow());
        VectorSchemaRoot b = TypedRows.root(second, memory.arrow());
        Table table = Table.borrow(a.getSchema(), List.of(a, b), TypedRows.provider(dictionary))) {
      Check check = new Check(table, rows, new ExecutionContext(memory, threads));
      booleans(check);
      narrowIntegers(check, random);
      floats(check, random);
      dates(check, random);
      timestamps(check, random);
      decimals(check, random);
      strings(check);
    }
  }

  private static void booleans(Check check) {
    List<NamedExpr> byFlag = List.of(col("flag").as("flag"));
    check.grouped(col("flag"), r -> Boolean.TRUE.equals(r.flag()), List.of(), r -> null);
    check.grouped(not(col("flag")), r -> Boolean.FALSE.equals(r.flag()), List.of(), r -> null);
    check.grouped(col("flag").eq(lit(false)), r -> Boolean.FALSE.equals(r.flag()), List.of(), r -> null);
    check.grouped(and(col("flag"), col("tiny").lt(lit(0))), r -> Boolean.TRUE.equals(r.flag()) && r.tiny() != null
        && r.tiny() < 0, List.of(), r -> null);
    check.grouped(null, r -> true, byFlag, Row::flag, Aggregate.min(col("flag"), "lo"), Aggregate.max(col("flag"), "hi"));
  }

  private static void narrowIntegers(Check check, Random random) {
    int tiny = random.nextInt(256) - 128;
    int small = random.nextInt(65536) - 32768;
    check.grouped(and(col("tiny").le(lit(tiny)), col("small").gt(lit(small))),
        r -> r.tiny() != null && r.tiny() <= tiny && r.small() != null && r.small() > small,
        List.of(col("flag").as("flag")), Row::flag,
        Aggregate.sum(col("tiny"), "sum_tiny"), Aggregate.min(col("small"), "min_small"),
        Aggregate.max(col("small"), "max_small"), Aggregate.count(col("tiny"), "count_tiny"));
    check.grouped(col("tiny").lt(col("small")), r -> r.tiny() != null && r.small() != null && r.tiny() < r.small(),
        List.of(), r -> null, Aggregate.sum(col("small").mul(col("tiny")), "product"));
  }

  private static void floats(Check check, Random random) {
    double threshold = random.nextBoolean() ? 0.0 : (random.nextDouble() - 0.5) * 2000;
    check.grouped(col("real").gt(lit(threshold)), r -> r.real() != null && r.real() > threshold,
        List.of(col("flag").as("flag")), Row::flag, Aggregate.min(col("real"), "lo"), Aggregate.max(col("real"), "hi"));
    check.grouped(col("real").eq(lit(0.0)), r -> r.real() != null && r.real() == 0.0, List.of(), r -> null,
        Aggregate.min(col("real"), "lo"), Aggregate.max(col("real"), "hi"));
    check.grouped(not(col("real").le(lit(threshold))), r -> r.real() != null && !(r.real() <= threshold),
        List.of(), r -> null);
  }

  private static void dates(Check check, Random random) {
    LocalDate low = LocalDate.ofEpochDay(random.nextInt(-200_000, 200_000));
    LocalDate high = low.plusDays(random.nextInt(100_000));
    check.grouped(col("day").between(date(low), date(high)), r -> r.day() != null && r.day() >= low.toEpochDay()
        && r.day() <= high.toEpochDay(), List.of(), r -> null,
        Aggregate.min(col("day"), "lo"), Aggregate.max(col("day"), "hi"));
    check.grouped(null, r -> true, List.of(year(col("day")).as("y")),
        r -> r.day() == null ? null : (long) LocalDate.ofEpochDay(r.day()).getYear());
  }

  private static void timestamps(Check check, Random random) {
    // a wall-clock constant in nanoseconds against the seconds column: aligned exactly
    LocalDateTime wall = LocalDateTime.ofEpochSecond(random.nextLong(-5_000_000_000L, 5_000_000_000L),
        random.nextBoolean() ? 0 : random.nextInt(1_000_000_000), ZoneOffset.UTC);
    check.grouped(col("ts_s").ge(timestamp(wall)), r -> r.tsSeconds() != null
        && !LocalDateTime.ofEpochSecond(r.tsSeconds(), 0, ZoneOffset.UTC).isBefore(wall), List.of(), r -> null,
        Aggregate.min(col("ts_s"), "lo"), Aggregate.max(col("ts_us"), "hi"));
    check.grouped(col("ts_us").lt(timestamp("1969-12-31T23:59:59.999999")),
        r -> r.tsMicros() != null && r.tsMicros() < -1, List.of(), r -> null);
    // instants against the zoned columns, sometimes far beyond the nanosecond column's range
    Instant instant = random.nextInt(4) == 0 ? Instant.parse("2500-01-01T00:00:00Z")
        : Instant.ofEpochSecond(random.nextLong(-5_000_000_000L, 5_000_000_000L), random.nextInt(1_000_000_000));
    check.grouped(col("ts_ns").lt(timestamp(instant)), r -> r.tsNanos() != null
        && Instant.ofEpochSecond(0, r.tsNanos()).isBefore(instant), List.of(col("flag").as("flag")), Row::flag,
        Aggregate.max(col("ts_ns"), "hi"), Aggregate.countStar("n"));
    check.grouped(col("ts_ms").gt(timestamp(instant)), r -> r.tsMillis() != null
        && Instant.ofEpochMilli(r.tsMillis()).isAfter(instant), List.of(), r -> null, Aggregate.min(col("ts_ms"), "lo"));
    check.grouped(null, r -> true, List.of(year(col("ts_ns")).as("y")),
        r -> r.tsNanos() == null ? null : (long) Instant.ofEpochSecond(0, r.tsNanos()).atZone(NEW_YORK).getYear());
    check.grouped(null, r -> true, List.of(year(col("ts_s")).as("y")),
        r -> r.tsSeconds() == null ? null : (long) LocalDateTime.ofEpochSecond(r.tsSeconds(), 0, ZoneOffset.UTC).getYear());
  }

  private static void decimals(Check check, Random random) {
    BigDecimal threshold = BigDecimal.valueOf(random.nextLong(-100_000_000L, 100_000_000L), random.nextInt(7));
    BigDecimal bound = new BigDecimal("1000000000");
    check.grouped(and(col("wide").gt(decimal(threshold)), col("wide").between(decimal(bound.negate()), decimal(bound))),
        r -> r.wide() != null && r.wide().compareTo(threshold) > 0 && r.wide().abs().compareTo(bound) <= 0,
        List.of(col("flag").as("flag")), Row::flag, Aggregate.sum(col("wide"), "total"), Aggregate.min(col("wide"), "lo"));
    check.grouped(null, r -> true, List.of(), r -> null, Aggregate.max(col("wide"), "hi"),
        Aggregate.count(col("wide"), "n"));
  }

  private static void strings(Check check) {
    check.grouped(col("text").like("a%"), r -> r.text() != null && r.text().startsWith("a"),
        List.of(col("word").as("word")), Row::word, Aggregate.countStar("n"));
    check.grouped(col("word").eq(lit("beta")), r -> "beta".equals(r.word()), List.of(col("text").as("text")), Row::text);
  }

  /** Runs plans over one table and compares each with its plain-Java reference over the rows. */
  private record Check(Table table, List<Row> rows, ExecutionContext context) {
    /**
     * {@code filter} (null: none), then COUNT(*) and {@code aggregates} grouped by {@code keys} (one
     * key or none), against the same over the rows {@code keep} keeps, grouped by {@code key}.
     */
    void grouped(Expr filter, Predicate<Row> keep, List<NamedExpr> keys, Function<Row, Object> key,
        Aggregate... aggregates) {
      List<Aggregate> all = new ArrayList<>(List.of(Aggregate.countStar("rows")));
      all.addAll(Arrays.asList(aggregates));
      Plan plan = Plan.scan(table);
      if (filter != null) {
        plan = plan.filter(filter);
      }
      Map<Object, List<Object>> actual = new HashMap<>();
      try (Table result = plan.aggregate(keys, all.toArray(Aggregate[]::new)).execute(context)) {
        for (Batch batch : result.batches()) {
          for (int r = 0; r < batch.rowCount(); r++) {
            List<Object> values = new ArrayList<>();
            for (int c = keys.size(); c < batch.columns().size(); c++) {
              values.add(batch.column(c).getObject(r));
            }
            actual.put(keys.isEmpty() ? "all" : Objects.requireNonNullElse(batch.column(0).getObject(r), "null"), values);
          }
        }
      }
      Map<Object, List<Row>> groups = new HashMap<>();
      for (Row row : rows) {
        if (keep.test(row)) {
          Object k = keys.isEmpty() ? "all" : Objects.requireNonNullElse(key.apply(row), "null");
          groups.computeIfAbsent(k, x -> new ArrayList<>()).add(row);
        }
      }
      if (keys.isEmpty() && groups.isEmpty()) {
        groups.put("all", List.of());
      }
      Map<Object, List<Object>> expected = new HashMap<>();
      groups.forEach((k, members) -> {
        List<Object> values = new ArrayList<>();
        values.add((long) members.size());
        for (Aggregate aggregate : aggregates) {
          values.add(reference(aggregate, members));
        }
        expected.put(k, values);
      });
      assertEquals(expected, actual, "filter " + filter + " by " + keys);
    }
  }

  /** An aggregate over rows in plain Java: values as {@link TypedRows.Row#expected} reads them. */
  private static Object reference(Aggregate aggregate, List<Row> rows) {
    Expr argument = aggregate.argument();
    if (argument == null) {
      return (long) rows.size(); // COUNT(*)
    }
    List<Object> values = new ArrayList<>();
    for (Row row : rows) {
      Object value = argument instanceof Expr.ColumnRef ref ? row.expected().get(TypedRows.COLUMNS.indexOf(ref.name()))
          : product(row);
      if (value != null) {
        values.add(value);
      }
    }
    return switch (aggregate.function()) {
      case COUNT -> (long) values.size();
      case SUM -> values.isEmpty() ? null : values.stream().map(TypedColumnsProperties::sumTerm).reduce(Sum::add).orElseThrow()
          .value();
      case MIN, MAX -> values.isEmpty() ? null : values.stream().reduce((x, y) -> extreme(x, y,
          aggregate.function() == Aggregate.Function.MIN)).orElseThrow();
      case AVG -> throw new AssertionError("not checked here");
    };
  }

  /** small * tiny, or null. */
  private static Object product(Row row) {
    return row.small() == null || row.tiny() == null ? null : (long) row.small() * row.tiny();
  }

  /** A running SUM: of integers (INT64) or decimals. */
  private record Sum(Object value) {
    Sum add(Sum other) {
      return value instanceof BigDecimal d ? new Sum(d.add((BigDecimal) other.value))
          : new Sum((Long) value + (Long) other.value);
    }
  }

  private static Sum sumTerm(Object value) {
    return new Sum(value instanceof Integer i ? (Object) (long) i : value);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Object extreme(Object x, Object y, boolean min) {
    if (x instanceof Double a && y instanceof Double b) {
      return min ? Math.min(a, b) : Math.max(a, b); // NaN wins, -0.0 is below 0.0, as the engine's doubles
    }
    int cmp = ((Comparable) x).compareTo(y);
    return min ? (cmp <= 0 ? x : y) : (cmp >= 0 ? x : y);
  }
}
