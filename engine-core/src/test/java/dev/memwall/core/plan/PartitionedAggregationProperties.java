package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.machine.CacheLevel;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.AggregateLayout;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Grouped aggregation, the workers' tables merged or partitioned in memory or spilled, against a
 * reference computed with a Java map: keys of one group, all distinct (in random order or ascending),
 * skewed over a few heavy hitters, a small domain, or a domain of a sixteenth of the rows in random
 * order, with null keys and the int64 limits, an optional
 * string key with nulls; values with nulls, decimals, exact doubles and dates; on 1, 2 and 4 threads of
 * a machine whose fast cache is small, so that a worker's table is partitioned out after 4,096 groups;
 * then again with the working memory limited to an eighth of what the unlimited run held, spilling.
 * A group whose sum leaves int64 fails with an {@link ArithmeticException} in every configuration.
 * Nothing stays allocated (leak check) and no spill file is left.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class PartitionedAggregationProperties {
  /** How the INT64 key spreads over the rows. */
  enum Shape { ONE_GROUP, ALL_DISTINCT, ASCENDING, STRETCHES, SKEWED, SMALL_DOMAIN, REPEATED }

  private static final MachineProfile SMALL_CACHE = smallCache();
  /**
   * Rows of each stretch of {@link Shape#STRETCHES}: whole chunks, as where a table several workers
   * materialized changes from one worker's part to the next (a key falling back inside a chunk makes
   * the table hashed, a case the other shapes cover).
   */
  private static final int STRETCH_ROWS = 40 * Chunk.CAPACITY;

  @Property(tries = 30)
  void aggregationEqualsReference(@ForAll long seed, @ForAll @IntRange(min = 0, max = 40_000) int rows,
      @ForAll Shape shape, @ForAll boolean stringKey, @ForAll @IntRange(min = 0, max = 2) int threadsLog,
      @ForAll AggregateLayout layout, @ForAll boolean overflow, EngineMemory data, EngineMemory memory)
      throws IOException {
    check(seed, rows, shape, stringKey, 1 << threadsLog, layout, overflow, SMALL_CACHE, data, memory);
  }

  /**
   * The aggregation on {@code machine}, unlimited and then limited, against the reference; returns
   * the unlimited run's report (null where a sum overflows).
   */
  private static SpillReport check(long seed, int rows, Shape shape, boolean stringKey, int threads,
      AggregateLayout layout, boolean overflow, MachineProfile machine, EngineMemory data, EngineMemory memory)
      throws IOException {
    Path root = Files.createTempDirectory("memwall-agg-partitioned");
    int directories = SpillDirectory.liveDirectories();
    try (Table table = table(data, seed, rows, shape, overflow)) {
      Map<List<Object>, List<Object>> expected = reference(table, stringKey);
      boolean overflows = expected == null;
      Plan plan = Plan.scan(table).aggregate(keys(stringKey), aggregates());
      List<SpillReport> reports = new ArrayList<>();
      ExecutionContext unlimited = ExecutionContext.builder(memory).threads(threads).aggregateLayout(layout)
          .machine(machine).spillDirectory(root).spillReports(reports::add).build();
      String what = shape + ", " + rows + " rows, " + threads + " threads, " + layout;
      if (overflows) {
        assertThrows(ArithmeticException.class, () -> plan.execute(unlimited).close(), what);
        assertThrows(ArithmeticException.class,
            () -> plan.execute(unlimited.toBuilder().memoryLimit(4 << 20).build()).close(), what);
        SpillTestData.assertNoSpillLeft(root, directories);
        return null;
      }
      long need;
      SpillReport unlimitedReport;
      try (Table actual = plan.execute(unlimited)) {
        SpillReport report = reports.getLast();
        unlimitedReport = report;
        assertEquals(expected, rows(actual, stringKey ? 2 : 1), what + ": " + report);
        assertTrue(!report.spilled(), what + ": " + report);
        if (threads == 1 || shape == Shape.ONE_GROUP || shape == Shape.SMALL_DOMAIN
            || (shape == Shape.ASCENDING && !stringKey)) {
          assertEquals(0, report.partitions(), "few groups, ordered keys or one thread merge: " + what);
        } else if (shape == Shape.ALL_DISTINCT && rows > 2 * Morsels.MORSEL_ROWS && machine == SMALL_CACHE) {
          assertTrue(report.partitions() > 0, "many groups on several workers are partitioned: " + what);
        }
        need = report.peakWorkingBytes();
      }
      long limit = Math.max(need / 8, 4 << 20); // each worker holds one chunk's groups at least
      try (Table actual = plan.execute(unlimited.toBuilder().memoryLimit(limit).build())) {
        SpillReport report = reports.getLast();
        assertEquals(expected, rows(actual, stringKey ? 2 : 1), what + ", limited to " + limit + ": " + report);
        assertTrue(report.peakWorkingBytes() <= limit, what + ": " + report);
      }
      SpillTestData.assertNoSpillLeft(root, directories);
      return unlimitedReport;
    } finally {
      Files.deleteIfExists(root);
    }
  }

  /** Distinct keys in no order on 2 and 4 threads: partitioned (asserted there), the reference's groups. */
  @Example
  void manyGroupsOnSeveralThreads(EngineMemory data, EngineMemory memory) throws IOException {
    for (int threadsLog = 1; threadsLog <= 2; threadsLog++) {
      for (boolean stringKey : new boolean[] {false, true}) {
        aggregationEqualsReference(7, 40_000, Shape.ALL_DISTINCT, stringKey, threadsLog, AggregateLayout.COLUMNS, false,
            data, memory);
      }
    }
  }

  /**
   * Keys ascending in three stretches over the same keys (a table several workers materialized from
   * an ordered input): each worker seals an ordered table where its keys fall back rather than hash
   * one, so nothing is partitioned out, even with a cache far smaller than the groups; the ordered
   * tables' equal keys fold in the merge; the reference's groups.
   */
  @Example
  void stretchesOfAscendingKeysStayOrdered(EngineMemory data, EngineMemory memory) throws IOException {
    for (int threads : new int[] {2, 4}) {
      SpillReport report = check(13, 120_000, Shape.STRETCHES, false, threads, AggregateLayout.COLUMNS, false,
          SMALL_CACHE, data, memory);
      assertEquals(0, report.partitions(), report.toString());
      assertTrue(!report.spilled(), report.toString());
    }
  }

  /**
   * Keys repeating sixteen times in random order, more of them than a worker's cache-sized table
   * holds (Q13's orders per customer): the tables grow to hold every group instead of being
   * partitioned out and passing rows on (no partitions: the tables, this small, merge into one); the
   * reference's groups.
   */
  @Example
  void repeatedKeysGrowTheTables(EngineMemory data, EngineMemory memory) throws IOException {
    for (int threads : new int[] {2, 4}) {
      SpillReport report = check(11, 120_000, Shape.REPEATED, false, threads, AggregateLayout.COLUMNS, false, SMALL_CACHE,
          data, memory);
      assertEquals(0, report.partitions(), report.toString());
      assertTrue(!report.spilled(), report.toString());
    }
  }

  /**
   * A cache that holds every worker's table, so none is partitioned out: on four threads, tables this
   * large still merge by partitions on all threads, not into one on one thread; on two, two tables
   * merge into one (the partitions would write and fold as many groups as that folds); the
   * reference's groups.
   */
  @Example
  void largeTablesMergeByPartitions(EngineMemory data, EngineMemory memory) throws IOException {
    for (boolean stringKey : new boolean[] {false, true}) {
      SpillReport report = check(5, 400_000, Shape.ALL_DISTINCT, stringKey, 4, AggregateLayout.COLUMNS, false,
          largeCache(), data, memory);
      assertTrue(report.partitions() > 0 && !report.spilled(), report.toString());
    }
    SpillReport two = check(5, 400_000, Shape.ALL_DISTINCT, false, 2, AggregateLayout.COLUMNS, false, largeCache(), data,
        memory);
    assertEquals(0, two.partitions(), "two tables merge into one: " + two);
    SpillReport few = check(5, 40_000, Shape.ALL_DISTINCT, false, 4, AggregateLayout.COLUMNS, false, largeCache(), data,
        memory);
    assertEquals(0, few.partitions(), "tables adding fewer groups merge into the largest: " + few);
  }

  /** Spilled runs and partitions kept in memory hold the same groups at the same limit. */
  @Property(tries = 6)
  void spillingWhilePartitionedInMemory(@ForAll @LongRange(min = 0, max = 1000) long seed,
      @ForAll @IntRange(min = 2, max = 4) int threads, EngineMemory data, EngineMemory memory) throws IOException {
    Path root = Files.createTempDirectory("memwall-agg-partitioned");
    int directories = SpillDirectory.liveDirectories();
    try (Table table = table(data, seed, 120_000, Shape.ALL_DISTINCT, false)) {
      Map<List<Object>, List<Object>> expected = reference(table, true);
      Plan plan = Plan.scan(table).aggregate(keys(true), aggregates());
      List<SpillReport> reports = new ArrayList<>();
      // a limit the partitions in memory outgrow: the workers go on on disk
      ExecutionContext limited = ExecutionContext.builder(memory).threads(threads).machine(smallCache())
          .memoryLimit(4 << 20).spillDirectory(root).spillReports(reports::add).build();
      try (Table actual = plan.execute(limited)) {
        SpillReport report = reports.getLast();
        assertEquals(expected, rows(actual, 2), report.toString());
        assertTrue(report.spilled() && report.partitions() > 0, report.toString());
        assertTrue(report.peakWorkingBytes() <= 4 << 20, report.toString());
      }
      SpillTestData.assertNoSpillLeft(root, directories);
    } finally {
      Files.deleteIfExists(root);
    }
  }

  /** The aggregates, in the order {@link #reference} gives their values. */
  private static Aggregate[] aggregates() {
    return new Aggregate[] {Aggregate.countStar("rows"), Aggregate.count(col("v"), "nv"), Aggregate.sum(col("v"), "sv"),
        Aggregate.min(col("v"), "lo"), Aggregate.max(col("v"), "hi"), Aggregate.sum(col("d"), "sd"),
        Aggregate.avg(col("x"), "ax"), Aggregate.min(col("day"), "first"), Aggregate.max(col("day"), "last")};
  }

  private static List<NamedExpr> keys(boolean stringKey) {
    return stringKey ? List.of(col("g").as("g"), col("s").as("s")) : List.of(col("g").as("g"));
  }

  /** A machine whose only fast cache is a 32 KiB L1d: workers' tables are partitioned out at the floor, 4,096 groups. */
  static MachineProfile smallCache() {
    return oneCache(32 << 10, 8);
  }

  /** A machine whose only fast cache, 256 MiB, holds every table these tests build. */
  static MachineProfile largeCache() {
    return oneCache(256 << 20, 16);
  }

  /** A synthetic two-core machine whose only data cache is one of {@code bytes} and {@code ways}. */
  private static MachineProfile oneCache(long bytes, int ways) {
    return new MachineProfile("synthetic", 2,
        List.of(new MachineProfile.MeasuredCache(new CacheLevel(1, "Data", bytes, 64, ways), bytes, 1.5)),
        100, 10, 10, List.of(), new MachineProfile.Bandwidth(10, 8, 12, 20, 15, 24), 4096,
        new MachineProfile.Tlb(1536, 10, Double.NaN, List.of()));
  }

  /**
   * Columns {@code g} (INT64 key, with nulls and the limits where the shape allows), {@code s} (STRING,
   * a small domain with nulls), {@code v} (INT64 with nulls; with {@code overflow}, five values of a
   * quarter of the range in one group, so its sum leaves int64; otherwise three), {@code d} (DECIMAL(2)),
   * {@code x} (FLOAT64 multiples of 1/64, so sums are exact in any order) and {@code day} (DATE).
   */
  static Table table(EngineMemory memory, long seed, int rows, Shape shape, boolean overflow) {
    Random random = new Random(seed);
    Long[] keys = new Long[rows];
    long[] limits = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1};
    for (int r = 0; r < rows; r++) {
      keys[r] = switch (shape) {
        case ONE_GROUP -> 42L;
        case ALL_DISTINCT -> r * 0x9E3779B97F4A7C15L; // distinct, in no order
        case ASCENDING -> r * 3L - 5_000L;
        case STRETCHES -> (r % STRETCH_ROWS) * 2L; // ascending in stretches over the same keys
        case SKEWED -> random.nextInt(4) > 0 ? (long) random.nextInt(8) : random.nextInt(rows / 2 + 1) * 31L;
        case SMALL_DOMAIN -> (long) random.nextInt(100);
        case REPEATED -> random.nextInt(Math.max(1, rows / 16)) * 7919L;
      };
      int odd = random.nextInt(200);
      boolean inOrder = shape == Shape.ONE_GROUP || shape == Shape.ASCENDING || shape == Shape.STRETCHES;
      if (!inOrder && odd == 0) {
        keys[r] = null;
      } else if (!inOrder && odd == 1) {
        keys[r] = limits[random.nextInt(limits.length)];
      }
    }
    if (shape == Shape.ALL_DISTINCT && rows > 1) {
      keys[rows - 1] = keys[0]; // one duplicate, across morsels
    }
    int hot = overflow && rows >= 5 ? 5 : Math.min(rows, 3);
    // ascending keys stay ascending in every worker's table: their hot rows are the hot key's row and the next
    // (a hot key copied into another worker's morsel would be a group out of order there)
    boolean ascending = shape == Shape.ASCENDING || shape == Shape.STRETCHES;
    int hotKeyRow = rows == 0 ? 0 : random.nextInt(ascending ? rows - hot + 1 : rows);
    String[] domain = {"", "a", "grün", "é", "promo tin"};
    List<String> names = List.of("g", "s", "v", "d", "x", "day");
    List<ColumnType> types = List.of(ColumnType.INT64, ColumnType.STRING, ColumnType.INT64, ColumnType.decimal(2),
        ColumnType.FLOAT64, ColumnType.DATE);
    boolean[] hotRows = new boolean[rows];
    for (int i = 0; i < hot; ) {
      int r = ascending ? hotKeyRow + i : random.nextInt(rows);
      if (!hotRows[r]) { // distinct rows: five quarters of the range always overflow, three never
        hotRows[r] = true;
        keys[r] = keys[hotKeyRow];
        i++;
      }
    }
    try (TableBuilder builder = new TableBuilder(names, types, memory.arrow())) {
      for (int r = 0; r < rows; r++) {
        builder.appendLongOrNull(keys[r]);
        builder.appendStringOrNull(hotRows[r] || random.nextInt(30) == 0 ? null : domain[random.nextInt(domain.length)]);
        builder.appendLongOrNull(hotRows[r] ? Long.valueOf(Long.MAX_VALUE / 4)
            : random.nextInt(10) == 0 ? null : Long.valueOf(random.nextInt(2_000_001) - 1_000_000));
        builder.appendLongOrNull(random.nextInt(10) == 0 ? null : Long.valueOf(random.nextInt(2_000_001) - 1_000_000));
        if (random.nextInt(10) == 0) {
          builder.appendNull();
        } else {
          builder.appendDouble((random.nextInt(2_000_001) - 1_000_000) / 64.0);
        }
        builder.appendLongOrNull(random.nextInt(10) == 0 ? null : Long.valueOf(9000 + random.nextInt(3000)));
        builder.endRow();
      }
      return builder.build();
    }
  }

  /**
   * The expected groups, key values to aggregate values (as the result's columns give them); null
   * when some group's sum of {@code v} leaves int64.
   */
  private static Map<List<Object>, List<Object>> reference(Table table, boolean stringKey) {
    Map<List<Object>, long[]> counts = new HashMap<>();
    Map<List<Object>, BigInteger[]> sums = new HashMap<>();
    Map<List<Object>, Object[]> extremes = new HashMap<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        Object g = batch.column(0).getObject(r);
        List<Object> key = stringKey ? Arrays.asList(g, batch.column(1).getObject(r)) : Arrays.asList(g);
        long[] c = counts.computeIfAbsent(key, k -> new long[3]); // rows, v's, x's
        BigInteger[] s = sums.computeIfAbsent(key, k -> new BigInteger[] {BigInteger.ZERO, BigInteger.ZERO, null});
        Object[] e = extremes.computeIfAbsent(key, k -> new Object[5]); // lo, hi, first, last, sum of x
        c[0]++;
        if (!batch.column(2).isNull(r)) {
          long v = batch.column(2).getLong(r);
          c[1]++;
          s[0] = s[0].add(BigInteger.valueOf(v));
          e[0] = e[0] == null ? v : Math.min((Long) e[0], v);
          e[1] = e[1] == null ? v : Math.max((Long) e[1], v);
        }
        if (!batch.column(3).isNull(r)) {
          BigDecimal d = (BigDecimal) batch.column(3).getObject(r);
          s[2] = s[2] == null ? d.unscaledValue() : s[2].add(d.unscaledValue());
        }
        if (!batch.column(4).isNull(r)) {
          c[2]++;
          e[4] = (e[4] == null ? 0.0 : (Double) e[4]) + batch.column(4).getDouble(r);
        }
        if (!batch.column(5).isNull(r)) {
          LocalDate day = (LocalDate) batch.column(5).getObject(r);
          e[2] = e[2] == null || day.isBefore((LocalDate) e[2]) ? day : e[2];
          e[3] = e[3] == null || day.isAfter((LocalDate) e[3]) ? day : e[3];
        }
      }
    }
    Map<List<Object>, List<Object>> expected = new HashMap<>();
    for (Map.Entry<List<Object>, long[]> group : counts.entrySet()) {
      long[] c = group.getValue();
      BigInteger[] s = sums.get(group.getKey());
      Object[] e = extremes.get(group.getKey());
      if (s[0].bitLength() >= 64) {
        return null;
      }
      expected.put(group.getKey(), Arrays.asList(c[0], c[1], c[1] == 0 ? null : s[0].longValue(), e[0], e[1],
          s[2] == null ? null : new BigDecimal(s[2], 2), c[2] == 0 ? null : (Double) e[4] / c[2], e[2], e[3]));
    }
    return expected;
  }

  /** The result's rows, its first {@code keyColumns} columns to the rest. */
  private static Map<List<Object>, List<Object>> rows(Table table, int keyColumns) {
    Map<List<Object>, List<Object>> rows = new HashMap<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        List<Object> key = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        for (int c = 0; c < batch.columns().size(); c++) {
          Object value = batch.column(c).getObject(r);
          (c < keyColumns ? key : values).add(value == null ? null : value instanceof CharSequence ? value.toString() : value);
        }
        List<Object> before = rows.put(key, values);
        assertEquals(null, before, "group " + key + " twice");
      }
    }
    return rows;
  }
}
