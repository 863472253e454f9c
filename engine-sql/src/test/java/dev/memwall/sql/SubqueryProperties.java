package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.TableRows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * NOT IN, EXISTS and NOT EXISTS correlated beyond a key equality, a correlated scalar subquery
 * grouped for the filtered outer rows' keys only, and COUNT(DISTINCT) through SQL text, over random tables {@code t(id BIGINT, x BIGINT, v INTEGER)} and {@code s(y BIGINT, w
 * INTEGER)} with nulls, duplicates, BIGINT's and INTEGER's limits and empty tables, against a
 * reference of SQL's semantics written here (three-valued comparisons; NOT IN is never true when
 * the subquery yields a null, and not true for a null value over a non-empty subquery).
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class SubqueryProperties {
  /** A row of t; ids are unique, the rest may be null. */
  record Outer(long id, Long x, Integer v) {}

  /** A row of s. */
  record Inner(Long y, Integer w) {}

  @Provide
  Arbitrary<List<Outer>> outers() {
    return Combinators.combine(keys(), ints()).as((x, v) -> new Outer(0, x, v)).list().ofMaxSize(30)
        .map(rows -> {
          List<Outer> numbered = new ArrayList<>();
          for (int i = 0; i < rows.size(); i++) {
            numbered.add(new Outer(i, rows.get(i).x(), rows.get(i).v()));
          }
          return numbered;
        });
  }

  @Provide
  Arbitrary<List<Inner>> inners() {
    return Combinators.combine(keys(), ints()).as(Inner::new).list().ofMaxSize(30);
  }

  private static Arbitrary<Long> keys() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just((Long) null)),
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE)),
        Tuple.of(6, Arbitraries.longs().between(-3, 6)));
  }

  private static Arbitrary<Integer> ints() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just((Integer) null)),
        Tuple.of(1, Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE)),
        Tuple.of(6, Arbitraries.integers().between(-3, 3)));
  }

  @Property(tries = 80)
  void notInFollowsSqlNulls(@ForAll("outers") List<Outer> outer, @ForAll("inners") List<Inner> inner,
      @ForAll("ints") Integer bound, EngineMemory memory) {
    int limit = bound == null ? 0 : bound;
    List<Inner> subquery = inner.stream().filter(row -> row.w() != null && row.w() > limit).toList();
    boolean hasNull = subquery.stream().anyMatch(row -> row.y() == null);
    Set<Long> values = new HashSet<>();
    subquery.stream().filter(row -> row.y() != null).forEach(row -> values.add(row.y()));
    List<List<Object>> expected = new ArrayList<>();
    for (Outer row : outer) {
      boolean notIn = subquery.isEmpty() || (row.x() != null && !hasNull && !values.contains(row.x()));
      if (notIn) {
        expected.add(List.of(row.id()));
      }
    }
    assertEquals(expected, run(outer, inner, "select id from t where x not in (select y from s where w > " + limit
        + ") order by id", memory));
  }

  @Provide("ints")
  Arbitrary<Integer> bounds() {
    return ints();
  }

  @Property(tries = 80)
  void existsCorrelatedByAKeyAndAComparisonFollowsSql(@ForAll("outers") List<Outer> outer,
      @ForAll("inners") List<Inner> inner, @ForAll boolean negated, @ForAll("operators") String op,
      @ForAll boolean outerFirst, EngineMemory memory) {
    List<List<Object>> expected = new ArrayList<>();
    for (Outer row : outer) {
      boolean exists = false;
      for (Inner candidate : inner) {
        Boolean compared = outerFirst ? compare(op, row.v(), candidate.w()) : compare(op, candidate.w(), row.v());
        exists |= row.x() != null && row.x().equals(candidate.y()) && Boolean.TRUE.equals(compared);
      }
      if (exists != negated) {
        expected.add(List.of(row.id()));
      }
    }
    String comparison = outerFirst ? "t.v " + op + " s.w" : "s.w " + op + " t.v";
    String sql = "select id from t where " + (negated ? "not " : "") + "exists (select * from s where s.y = t.x and "
        + comparison + ") order by id";
    assertEquals(expected, run(outer, inner, sql, memory), sql);
  }

  @Property(tries = 80)
  void aCorrelatedScalarGroupedForTheOuterRowsKeysOnlyFollowsSql(@ForAll("outers") List<Outer> outer,
      @ForAll("inners") List<Inner> inner, @ForAll("ints") Integer bound, EngineMemory memory) {
    int limit = bound == null ? 0 : bound;
    List<List<Object>> expected = new ArrayList<>();
    for (Outer row : outer) {
      Integer largest = null;
      for (Inner candidate : inner) {
        if (row.x() != null && row.x().equals(candidate.y()) && candidate.w() != null) {
          largest = largest == null ? candidate.w() : Math.max(largest, candidate.w());
        }
      }
      if (row.v() != null && row.v() > limit && largest != null && row.v() < largest) {
        expected.add(List.of(row.id()));
      }
    }
    String sql = "select id from t where v > " + limit + " and v < (select max(w) from s where s.y = t.x) order by id";
    assertEquals(expected, run(outer, inner, sql, memory), sql);
  }

  @Property(tries = 60)
  void anInSubqueryOverAJoinKeepsTheRowsOfTheJoinWhoseKeyItHas(@ForAll("outers") List<Outer> outer,
      @ForAll("inners") List<Inner> inner, @ForAll("ints") Integer bound, @ForAll boolean negated,
      EngineMemory memory) {
    int limit = bound == null ? 0 : bound;
    Set<Long> values = new HashSet<>();
    inner.stream().filter(row -> row.y() != null && row.w() != null && row.w() > limit).forEach(r -> values.add(r.y()));
    List<List<Object>> expected = new ArrayList<>();
    for (Outer row : outer) {
      for (Inner other : inner) {
        if (row.x() != null && row.x().equals(other.y()) && values.contains(row.x()) != negated) {
          expected.add(Arrays.asList(row.id(), other.w()));
        }
      }
    }
    String sql = "select t.id, s.w from t, s where t.x = s.y and " + (negated ? "not " : "") + "exists (select * "
        + "from s i where i.y = t.x and i.w > " + limit + ")";
    List<List<Object>> actual = new ArrayList<>(run(outer, inner, sql, memory));
    Comparator<List<Object>> byRow = Comparator.comparing((List<Object> row) -> (Long) row.get(0))
        .thenComparing(row -> (Integer) row.get(1), Comparator.nullsFirst(Comparator.naturalOrder()));
    expected.sort(byRow);
    actual.sort(byRow);
    assertEquals(expected, actual, sql);
  }

  @Example
  void aSubquerysSemiJoinGoesOnTheJoinInputWithItsKey(EngineMemory memory) {
    try (Table t = outer(List.of(), memory); Table s = inner(List.of(), memory)) {
      String plan = Memwall.prepare(new Catalog().register("t", t).register("s", s), "select t.id, s.w from t, s "
          + "where t.x = s.y and t.x in (select y from s where w > 0)").explain();
      int inner = plan.indexOf("inner join");
      int semi = plan.indexOf("semi join");
      assertTrue(inner >= 0 && semi > inner, "the semi join is below the inner join\n" + plan);
    }
  }

  @Example
  void aCorrelatedScalarIsGroupedOnlyForTheKeysOfTheFilteredOuterTable(EngineMemory memory) {
    try (Table t = outer(List.of(), memory); Table s = inner(List.of(), memory)) {
      Catalog catalog = new Catalog().register("t", t).register("s", s);
      String reduced = Memwall.prepare(catalog, "select id from t where v > 0 and v < (select max(w) from s "
          + "where s.y = t.x)").explain();
      assertTrue(reduced.contains("semi join on [y] = [x]"), reduced);
      String whole = Memwall.prepare(catalog, "select id from t where v < (select max(w) from s where s.y = t.x)")
          .explain();
      assertFalse(whole.contains("semi join"), "an unfiltered table has every key: nothing to reduce\n" + whole);
    }
  }

  @Provide
  Arbitrary<String> operators() {
    return Arbitraries.of("<>", "<", "<=", ">", ">=");
  }

  @Property(tries = 60)
  void countDistinctCountsEachNonNullValueOncePerGroup(@ForAll("outers") List<Outer> outer, @ForAll boolean grouped,
      EngineMemory memory) {
    TreeMap<Long, Set<Integer>> groups = new TreeMap<>(Comparator.nullsFirst(Comparator.naturalOrder()));
    for (Outer row : outer) {
      Set<Integer> values = groups.computeIfAbsent(grouped ? row.x() : Long.valueOf(0), key -> new HashSet<>());
      if (row.v() != null) {
        values.add(row.v());
      }
    }
    List<List<Object>> expected = new ArrayList<>();
    if (!grouped) {
      expected.add(List.of((long) (groups.isEmpty() ? 0 : groups.firstEntry().getValue().size())));
    } else {
      groups.forEach((key, values) -> expected.add(Arrays.asList(key, (long) values.size())));
    }
    String sql = grouped ? "select x, count(distinct v) from t group by x"
        : "select count(distinct v) from t";
    List<List<Object>> actual = run(outer, List.of(), sql, memory);
    if (grouped) { // groups in no particular order: sorted as the expected ones are
      actual = new ArrayList<>(actual);
      actual.sort(Comparator.comparing(row -> (Long) row.get(0), Comparator.nullsFirst(Comparator.naturalOrder())));
    }
    assertEquals(expected, actual, sql);
  }

  /** {@code a op b} in SQL: null when either is null. */
  private static Boolean compare(String op, Integer a, Integer b) {
    if (a == null || b == null) {
      return null;
    }
    int c = Integer.compare(a, b);
    return switch (op) {
      case "<>" -> c != 0;
      case "<" -> c < 0;
      case "<=" -> c <= 0;
      case ">" -> c > 0;
      default -> c >= 0;
    };
  }

  private static List<List<Object>> run(List<Outer> outer, List<Inner> inner, String sql, EngineMemory memory) {
    try (Table t = outer(outer, memory); Table s = inner(inner, memory);
        Table result = Memwall.sql(new Catalog().register("t", t).register("s", s), sql,
            new ExecutionContext(memory, 2))) {
      return TableRows.of(result);
    }
  }

  private static Table outer(List<Outer> rows, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("id", "x", "v"),
        List.of(ColumnType.INT64, ColumnType.INT64, ColumnType.INT32), memory.arrow())) {
      for (Outer row : rows) {
        builder.appendLong(row.id());
        append(builder, row.x() == null ? null : row.x().longValue());
        append(builder, row.v() == null ? null : row.v().longValue());
        builder.endRow();
      }
      return builder.build();
    }
  }

  private static Table inner(List<Inner> rows, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("y", "w"), List.of(ColumnType.INT64, ColumnType.INT32),
        memory.arrow())) {
      for (Inner row : rows) {
        append(builder, row.y());
        append(builder, row.w() == null ? null : row.w().longValue());
        builder.endRow();
      }
      return builder.build();
    }
  }

  private static void append(TableBuilder builder, Long value) {
    if (Objects.isNull(value)) {
      builder.appendNull();
    } else {
      builder.appendLong(value);
    }
  }
}
