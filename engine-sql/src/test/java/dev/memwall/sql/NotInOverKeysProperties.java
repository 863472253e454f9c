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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@code NOT IN} whose needle and subquery column are declared keys (or foreign keys) of the
 * catalog is a plain anti join, without the counts SQL's nulls otherwise need; a nullable side on
 * either hand, or a key read through an outer join's optional side, keeps the null-aware form.
 * Over random tables {@code t(id BIGINT key, x BIGINT, v BIGINT)} with nulls, duplicates, limits and
 * empty subqueries, against a reference of SQL's semantics.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class NotInOverKeysProperties {
  /** A row of t; ids are unique and non-null (the key), x and v may be null. */
  record Row(long id, Long x, Long v) {}

  @Provide
  Arbitrary<List<Row>> rows() {
    Arbitrary<Long> value = Arbitraries.oneOf(Arbitraries.longs().between(-2, 5),
        Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE)).injectNull(0.2);
    return value.list().ofMaxSize(25).flatMap(xs -> value.list().ofSize(xs.size()).map(vs -> {
      List<Row> rows = new ArrayList<>();
      for (int i = 0; i < xs.size(); i++) {
        rows.add(new Row(i == 0 ? Long.MAX_VALUE : i - 1, xs.get(i), vs.get(i)));
      }
      return rows;
    }));
  }

  @Property(tries = 60)
  void notInBetweenKeysIsAnAntiJoinWithSqlsAnswer(@ForAll("rows") List<Row> rows,
      @ForAll("bounds") long bound, EngineMemory memory) {
    Set<Long> chosen = new HashSet<>();
    rows.stream().filter(row -> row.v() != null && row.v() > bound).forEach(row -> chosen.add(row.id()));
    List<List<Object>> expected = new ArrayList<>();
    rows.stream().filter(row -> !chosen.contains(row.id())).forEach(row -> expected.add(List.of(row.id())));
    expected.sort((a, b) -> Long.compare((Long) a.getFirst(), (Long) b.getFirst()));
    String sql = "select id from t where id not in (select id from t u where u.v > " + bound + ") order by id";
    try (Table t = table(rows, memory)) {
      Catalog catalog = new Catalog().register("t", t).declareKey("t", List.of("id"));
      String plan = Memwall.prepare(catalog, sql).explain();
      assertTrue(plan.contains("anti join") && !plan.contains("notin$"), plan);
      assertEquals(expected, run(catalog, sql, memory), sql);
    }
  }

  @Property(tries = 60)
  void aNullableNeedleKeepsSqlsNulls(@ForAll("rows") List<Row> rows, @ForAll("bounds") long bound,
      EngineMemory memory) {
    Set<Long> chosen = new HashSet<>();
    rows.stream().filter(row -> row.v() != null && row.v() > bound).forEach(row -> chosen.add(row.id()));
    List<List<Object>> expected = new ArrayList<>();
    rows.stream().filter(row -> chosen.isEmpty() || row.x() != null && !chosen.contains(row.x()))
        .forEach(row -> expected.add(List.of(row.id())));
    expected.sort((a, b) -> Long.compare((Long) a.getFirst(), (Long) b.getFirst()));
    String sql = "select id from t where x not in (select id from t u where u.v > " + bound + ") order by id";
    try (Table t = table(rows, memory)) {
      Catalog catalog = new Catalog().register("t", t).declareKey("t", List.of("id"));
      String plan = Memwall.prepare(catalog, sql).explain();
      assertTrue(plan.contains("notin$"), "x is not declared non-null: the null-aware form\n" + plan);
      assertEquals(expected, run(catalog, sql, memory), sql);
    }
  }

  @Provide
  Arbitrary<Long> bounds() {
    return Arbitraries.longs().between(-3, 6);
  }

  @Example
  void aForeignKeyIsNonNullAndAKeyOnAnOuterJoinsOptionalSideIsNot(EngineMemory memory) {
    List<Row> rows = List.of(new Row(1, 2L, 5L), new Row(2, 1L, null), new Row(3, 3L, 0L));
    try (Table t = table(rows, memory)) {
      Catalog catalog = new Catalog().register("t", t).declareKey("t", List.of("id"))
          .declareForeignKey("t", List.of("x"), "t", List.of("id"));
      String foreign = "select id from t where x not in (select id from t u where u.v > 1) order by id";
      String plan = Memwall.prepare(catalog, foreign).explain();
      assertFalse(plan.contains("notin$"), plan);
      assertEquals(List.of(List.of(1L), List.of(3L)), run(catalog, foreign, memory));
      // only t.x = 1 finds a u.id (v > 1): the others' u.id is null, for which NOT IN is not true
      String outer = "select t.id from t left join (select id from t where v > 1) u on t.x = u.id "
          + "where u.id not in (select id from t w where w.v = 0) order by t.id";
      String outerPlan = Memwall.prepare(catalog, outer).explain();
      assertTrue(outerPlan.contains("notin$"), outerPlan);
      assertEquals(List.of(List.of(2L)), run(catalog, outer, memory));
    }
  }

  private static List<List<Object>> run(Catalog catalog, String sql, EngineMemory memory) {
    try (Table result = Memwall.sql(catalog, sql, new ExecutionContext(memory, 2))) {
      return TableRows.of(result);
    }
  }

  private static Table table(List<Row> rows, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("id", "x", "v"),
        List.of(ColumnType.INT64, ColumnType.INT64, ColumnType.INT64), memory.arrow())) {
      for (Row row : rows) {
        builder.appendLong(row.id());
        builder.appendLongOrNull(row.x());
        builder.appendLongOrNull(row.v());
        builder.endRow();
      }
      return builder.build();
    }
  }
}
