package dev.memwall.tpch.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.sql.Memwall;
import dev.memwall.substrait.Catalog;
import dev.memwall.tpch.verify.DuckDbOracle;
import dev.memwall.tpch.verify.QueryResult;
import dev.memwall.tpch.verify.ResultComparator;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Random SQL through {@link Memwall#sql} against DuckDB on the same generated tables: selections,
 * filters (comparisons, IN, BETWEEN, LIKE, IS NULL, AND/OR/NOT), inner, left and comma joins,
 * grouping with the standard aggregates and HAVING, ORDER BY over every output column with either
 * null order, and LIMIT. The tables {@code t(k BIGINT, a INTEGER, d DOUBLE, s VARCHAR, dt DATE,
 * amt DECIMAL(18, 2))} and {@code u(k BIGINT, b INTEGER, s VARCHAR)} hold nulls in every column, one
 * key most rows share, the types' limits, {@code -0.0}, empty strings, and may be empty.
 *
 * <p>DuckDB runs without its statistics propagation: DuckDB 2.0 folds {@code sum(t.amt) >= 1.00}
 * over {@code t left join u} with {@code u} empty to false whatever the sum (this test found it:
 * {@code select count(*) from t left join u on t.k = u.k where t.k = 1 having sum(t.amt) >= 1.00}
 * over one row of {@code k = 1, amt = 1.00} returns no row).
 *
 * <p>Results are compared as multisets of rows unless the query orders by every output column, then
 * in order; numbers compare by value (exact for integers, to ten significant digits otherwise, as
 * sums of doubles depend on the order they are added in). Queries are built from parts that shrink
 * (fewer rows, simpler predicates, fewer columns), so a failure reports a small query.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class SqlAgainstDuckDbProperties {
  /** A row of {@code t}; null is SQL's null; {@code dt} in days since 1970, {@code amt} in cents. */
  record TRow(Long k, Integer a, Double d, String s, Integer dt, Long amt) {}

  /** A row of {@code u}. */
  record URow(Long k, Integer b, String s) {}

  /** How {@code t} and {@code u} are combined. */
  enum From {
    T("t"),
    INNER("t join u on t.k = u.k"),
    LEFT("t left join u on t.k = u.k"),
    COMMA("t, u");

    final String sql;

    From(String sql) {
      this.sql = sql;
    }

    boolean hasU() {
      return this != T;
    }
  }

  /** A query: where it reads, a filter, and either a projection or a grouping, ordered and limited or not. */
  record Query(From from, String where, List<String> select, List<String> groupBy, String having,
      List<String> order, Long limit) {
    String sql() {
      StringBuilder sql = new StringBuilder("select ");
      List<String> items = new ArrayList<>();
      for (int i = 0; i < select.size(); i++) {
        items.add(select.get(i) + " as c" + i);
      }
      sql.append(String.join(", ", items)).append(" from ").append(from.sql);
      List<String> conditions = new ArrayList<>();
      if (from == From.COMMA) {
        conditions.add("t.k = u.k");
      }
      if (where != null) {
        conditions.add(where);
      }
      if (!conditions.isEmpty()) {
        sql.append(" where ").append(conditions.stream().map(c -> "(" + c + ")").collect(Collectors.joining(" and ")));
      }
      if (!groupBy.isEmpty()) {
        sql.append(" group by ").append(String.join(", ", groupBy));
      }
      if (having != null) {
        sql.append(" having ").append(having);
      }
      if (!order.isEmpty()) {
        sql.append(" order by ").append(String.join(", ", order));
      }
      if (limit != null) {
        sql.append(" limit ").append(limit);
      }
      return sql.toString();
    }

    boolean ordered() {
      return !order.isEmpty();
    }
  }

  @Property(tries = 50, shrinking = net.jqwik.api.ShrinkingMode.FULL)
  void memwallAnswersAsDuckDbDoes(@ForAll("tRows") List<TRow> tRows, @ForAll("uRows") List<URow> uRows,
      @ForAll("queries") Query query, EngineMemory memory) throws SQLException {
    String sql = query.sql();
    try (Table t = t(tRows, memory); Table u = u(uRows, memory); DuckDbOracle duck = new DuckDbOracle(1)) {
      duck.runSql("SET disabled_optimizers = 'statistics_propagation'; SELECT 1");
      duck.load("t", t, memory.arrow());
      duck.load("u", u, memory.arrow());
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      QueryResult answer;
      try {
        answer = duck.runSql(sql);
      } catch (SQLException e) { // an overflow: memwall must fail too, and say so
        RuntimeException failure = assertThrows(RuntimeException.class, () -> {
          try (Table result = Memwall.sql(catalog, sql, new ExecutionContext(memory, 2))) {
            fail("DuckDB fails (" + e.getMessage() + ") but memwall returns " + ResultComparator.rows(result));
          }
        }, sql);
        assertTrue(e.getMessage().contains("Overflow") && failure instanceof ArithmeticException,
            sql + ": DuckDB " + e.getMessage() + "; memwall " + failure);
        return;
      }
      List<List<String>> expected = canonical(answer.rows(), query.ordered());
      try (Table result = Memwall.sql(catalog, sql, new ExecutionContext(memory, 2))) {
        List<List<String>> actual = canonical(ResultComparator.rows(result), query.ordered());
        assertEquals(expected, actual, sql);
      }
    }
  }

  // ---- tables

  @Provide
  Arbitrary<List<TRow>> tRows() {
    Arbitrary<TRow> row = Combinators.combine(keys(), ints(), doubles(), strings(), dates(), amounts()).as(TRow::new);
    return row.list().ofMaxSize(24);
  }

  @Provide
  Arbitrary<List<URow>> uRows() {
    return Combinators.combine(keys(), ints(), strings()).as(URow::new).list().ofMaxSize(12);
  }

  private static Arbitrary<Long> keys() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just((Long) null)),
        Tuple.of(4, Arbitraries.just(1L)), // skew: one key most rows share
        Tuple.of(4, Arbitraries.longs().between(0, 5)),
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE)));
  }

  private static Arbitrary<Integer> ints() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just((Integer) null)),
        Tuple.of(6, Arbitraries.integers().between(-3, 3)),
        Tuple.of(1, Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE)));
  }

  private static Arbitrary<Double> doubles() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just((Double) null)),
        Tuple.of(6, Arbitraries.of(0.0, -0.0, -1.5, 2.25, 0.1, 1e10, -7.0)));
  }

  private static Arbitrary<String> strings() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just((String) null)),
        Tuple.of(6, Arbitraries.of("", "a", "A", "ab", "b", "x y", "a%")));
  }

  private static Arbitrary<Integer> dates() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just((Integer) null)),
        Tuple.of(6, Arbitraries.integers().between(9000, 9010))); // 1994-08-23 to 1994-09-02
  }

  private static Arbitrary<Long> amounts() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just((Long) null)),
        Tuple.of(6, Arbitraries.longs().between(-500, 500)));
  }

  private static Table t(List<TRow> rows, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "a", "d", "s", "dt", "amt"), List.of(ColumnType.INT64,
        ColumnType.INT32, ColumnType.FLOAT64, ColumnType.STRING, ColumnType.DATE, ColumnType.decimal(2)),
        memory.arrow())) {
      for (TRow row : rows) {
        builder.appendLongOrNull(row.k());
        builder.appendLongOrNull(row.a() == null ? null : row.a().longValue());
        if (row.d() == null) {
          builder.appendNull();
        } else {
          builder.appendDouble(row.d());
        }
        builder.appendStringOrNull(row.s());
        builder.appendLongOrNull(row.dt() == null ? null : row.dt().longValue());
        builder.appendLongOrNull(row.amt());
        builder.endRow();
      }
      return builder.build();
    }
  }

  private static Table u(List<URow> rows, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "b", "s"),
        List.of(ColumnType.INT64, ColumnType.INT32, ColumnType.STRING), memory.arrow())) {
      for (URow row : rows) {
        builder.appendLongOrNull(row.k());
        builder.appendLongOrNull(row.b() == null ? null : row.b().longValue());
        builder.appendStringOrNull(row.s());
        builder.endRow();
      }
      return builder.build();
    }
  }

  // ---- queries

  @Provide
  Arbitrary<Query> queries() {
    return Arbitraries.of(From.values()).flatMap(from -> Combinators.combine(
        predicate(from, 2).injectNull(0.3),
        Arbitraries.of(false, true)).flatAs((where, grouped) -> grouped
        ? grouping(from, where) : projection(from, where)));
  }

  /** Columns a query over {@code from} may select or group by. */
  private static List<String> columns(From from) {
    List<String> columns = new ArrayList<>(List.of("t.k", "t.a", "t.d", "t.s", "t.dt", "t.amt"));
    if (from.hasU()) {
      columns.addAll(List.of("u.k", "u.b", "u.s"));
    }
    return columns;
  }

  /** Expressions a projection may compute besides its columns (those at the types' limits overflow). */
  private static final List<String> EXPRESSIONS = List.of("t.amt * 2", "t.d + 1", "t.a + 1", "t.k - 1",
      "case when t.a > 0 then t.amt else 0 end", "substring(t.s from 1 for 1)", "extract(year from t.dt)");

  private static Arbitrary<Query> projection(From from, String where) {
    List<String> choices = new ArrayList<>(columns(from));
    choices.addAll(EXPRESSIONS);
    Arbitrary<List<String>> select = Arbitraries.of(choices).list().ofMinSize(1).ofMaxSize(4);
    return select.flatMap(items -> ordering(items.size()).map(order -> new Query(from, where, items, List.of(), null,
        order.order(), order.limit())));
  }

  private static Arbitrary<Query> grouping(From from, String where) {
    List<String> keyColumns = new ArrayList<>(List.of("t.k", "t.s", "t.a", "t.dt", "t.d", "t.amt"));
    List<String> aggregates = new ArrayList<>(List.of("count(*)", "count(t.s)", "sum(t.amt)", "max(t.k)",
        "min(t.dt)", "sum(t.d)", "avg(t.d)", "max(t.amt)", "sum(t.a)",
        "sum(case when t.a > 0 then t.amt else 0 end)", "count(t.dt)"));
    if (from.hasU()) {
      keyColumns.add("u.s");
      aggregates.addAll(List.of("count(u.b)", "sum(u.b)", "min(u.k)"));
    }
    Arbitrary<List<String>> keys = Arbitraries.of(keyColumns).list().uniqueElements().ofMaxSize(2);
    Arbitrary<List<String>> aggs = Arbitraries.of(aggregates).list().ofMinSize(1).ofMaxSize(3);
    Arbitrary<String> having = Arbitraries.of("count(*) > 1", "min(t.a) < 0", "sum(t.amt) >= 1.00").injectNull(0.6);
    return Combinators.combine(keys, aggs, having).flatAs((k, a, h) -> {
      List<String> select = new ArrayList<>(k);
      select.addAll(a);
      return ordering(select.size()).map(order -> new Query(from, where, select, k, h, order.order(), order.limit()));
    });
  }

  /** No order, or every output column in some order and direction, then maybe a limit. */
  private record Ordering(List<String> order, Long limit) {}

  private static Arbitrary<Ordering> ordering(int columns) {
    List<Integer> positions = new ArrayList<>();
    for (int i = 1; i <= columns; i++) {
      positions.add(i);
    }
    Arbitrary<String> direction = Arbitraries.of(" asc nulls first", " asc nulls last", " desc nulls first",
        " desc nulls last");
    Arbitrary<List<String>> all = Arbitraries.shuffle(positions).flatMap(order -> direction.list().ofSize(columns)
        .map(directions -> {
          List<String> keys = new ArrayList<>();
          for (int i = 0; i < columns; i++) {
            keys.add(order.get(i) + directions.get(i));
          }
          return keys;
        }));
    Arbitrary<Ordering> ordered = Combinators.combine(all, Arbitraries.longs().between(0, 6).injectNull(0.5))
        .as(Ordering::new);
    return Arbitraries.oneOf(Arbitraries.just(new Ordering(List.of(), null)), ordered);
  }

  /** A predicate over {@code from}'s columns, nested {@code depth} levels at most. */
  private static Arbitrary<String> predicate(From from, int depth) {
    List<String> atoms = new ArrayList<>(List.of(
        "t.k = 1", "t.k < 3", "t.k >= 0", "t.k is null", "t.k in (0, 2, 9223372036854775807)",
        "t.k <> -9223372036854775808", "t.a > -2", "t.a <> 0", "t.a between -1 and 2", "t.a is not null",
        "t.a = 2147483647", "t.d < 1.0", "t.d = 0", "t.d >= -1.5", "t.s = 'a'", "t.s <> ''", "t.s like 'a%'",
        "t.s < 'b'", "t.s is not null", "t.s in ('A', 'x y')", "t.dt < date '1994-08-28'",
        "t.dt between date '1994-08-25' and date '1994-08-30'", "t.amt > 1.50", "t.amt = 0", "t.amt <= -2.5"));
    if (from.hasU()) {
      atoms.addAll(List.of("u.b < 1", "u.b is null", "u.s >= 'a'", "t.a = u.b"));
    }
    Arbitrary<String> atom = Arbitraries.of(atoms);
    if (depth == 0) {
      return atom;
    }
    Arbitrary<String> inner = predicate(from, depth - 1);
    return Arbitraries.frequencyOf(
        Tuple.of(3, atom),
        Tuple.of(1, inner.map(p -> "not (" + p + ")")),
        Tuple.of(1, Combinators.combine(inner, inner).as((l, r) -> "(" + l + ") and (" + r + ")")),
        Tuple.of(1, Combinators.combine(inner, inner).as((l, r) -> "(" + l + ") or (" + r + ")")));
  }

  // ---- comparison

  /** Rows as canonical strings (see the class comment), sorted unless {@code ordered}. */
  private static List<List<String>> canonical(List<List<Object>> rows, boolean ordered) {
    List<List<String>> canonical = new ArrayList<>(rows.size());
    for (List<Object> row : rows) {
      canonical.add(row.stream().map(SqlAgainstDuckDbProperties::canonical).toList());
    }
    if (!ordered) {
      canonical.sort(Comparator.comparing(List::toString));
    }
    return canonical;
  }

  private static String canonical(Object value) {
    return switch (value) {
      case null -> "NULL";
      case Double d -> number(new BigDecimal(d == 0 ? 0 : d), true);
      case Float f -> number(new BigDecimal(f == 0 ? 0 : f), true);
      case BigDecimal b -> number(b, b.stripTrailingZeros().scale() > 0);
      case BigInteger i -> number(new BigDecimal(i), false);
      case Number n -> number(BigDecimal.valueOf(n.longValue()), false);
      case java.sql.Date d -> d.toLocalDate().toString();
      case LocalDate d -> d.toString();
      default -> "'" + value + "'";
    };
  }

  private static String number(BigDecimal value, boolean rounded) {
    BigDecimal shown = rounded ? value.round(new MathContext(10)) : value;
    return shown.signum() == 0 ? "0" : shown.stripTrailingZeros().toPlainString();
  }
}
