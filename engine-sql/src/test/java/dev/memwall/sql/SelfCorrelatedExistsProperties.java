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
import java.util.List;
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
 * {@code [NOT] EXISTS} over another row of the same table, correlated by a key equality and {@code
 * <>} (TPC-H Q21's shape: another supplier's line of the same order), over random tables {@code
 * t(id BIGINT, x BIGINT, v INTEGER)} whose ids are a declared key (so never null) and whose other
 * columns have nulls, duplicates and INTEGER's limits, against a reference of SQL's semantics
 * written here. With the subquery's condition also on the outer row, or no condition, each outer
 * row is one of its group's rows and the plan decides {@code <>} of ids by whether the group's
 * smallest and largest differ; with a condition only the subquery has, or over the nullable {@code
 * v}, it must not.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class SelfCorrelatedExistsProperties {
  /** A row of t; the id is its position. */
  record Row(long id, Long x, Integer v) {}

  @Provide
  Arbitrary<List<Row>> rows() {
    Arbitrary<Long> keys = Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just((Long) null)),
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE)),
        Tuple.of(6, Arbitraries.longs().between(-2, 4)));
    Arbitrary<Integer> values = Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just((Integer) null)),
        Tuple.of(1, Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE)),
        Tuple.of(6, Arbitraries.integers().between(-3, 3)));
    return Combinators.combine(keys, values).as((x, v) -> new Row(0, x, v)).list().ofMaxSize(30)
        .map(rows -> {
          List<Row> numbered = new ArrayList<>();
          for (int i = 0; i < rows.size(); i++) {
            numbered.add(new Row(i, rows.get(i).x(), rows.get(i).v()));
          }
          return numbered;
        });
  }

  @Property(tries = 120)
  void existsOfAnotherRowOfTheSameGroupFollowsSql(@ForAll("rows") List<Row> rows, @ForAll boolean negated,
      @ForAll boolean outerCondition, @ForAll boolean innerCondition, @ForAll boolean byValue, EngineMemory memory) {
    int bound = 0;
    List<List<Object>> expected = new ArrayList<>();
    for (Row row : rows) {
      if (outerCondition && !(row.v() != null && row.v() > bound)) {
        continue;
      }
      boolean exists = false;
      for (Row other : rows) {
        boolean differs = byValue ? row.v() != null && other.v() != null && !row.v().equals(other.v())
            : other.id() != row.id();
        exists |= row.x() != null && row.x().equals(other.x()) && differs
            && (!innerCondition || other.v() != null && other.v() > bound);
      }
      if (exists != negated) {
        expected.add(List.of(row.id()));
      }
    }
    String sql = "select id from t t1 where " + (outerCondition ? "t1.v > " + bound + " and " : "")
        + (negated ? "not " : "") + "exists (select * from t t2 where t2.x = t1.x and "
        + (byValue ? "t2.v <> t1.v" : "t2.id <> t1.id")
        + (innerCondition ? " and t2.v > " + bound : "") + ") order by id";
    try (Table t = table(rows, memory); Table result = Memwall.sql(catalog(t), sql, new ExecutionContext(memory, 2))) {
      assertEquals(expected, TableRows.of(result), sql);
    }
  }

  @Example
  void aGroupOfTheOuterRowsOwnRowsIsDecidedByItsExtremes(EngineMemory memory) {
    try (Table t = table(List.of(), memory)) {
      String own = Memwall.prepare(catalog(t), "select id from t t1 where t1.v > 0 and not exists (select * from t t2 "
          + "where t2.x = t1.x and t2.id <> t1.id and t2.v > 0)").explain();
      assertTrue(own.contains("anti join") && own.contains("op=NE, left=ColumnRef[name=exists$min]"), own);
      assertFalse(own.contains("left_outer join"), own);
      String other = Memwall.prepare(catalog(t), "select id from t t1 where not exists (select * from t t2 "
          + "where t2.x = t1.x and t2.id <> t1.id and t2.v > 0)").explain();
      assertTrue(other.contains("left_outer join"), "t1's rows need not pass t2.v > 0: the general plan\n" + other);
      String nullable = Memwall.prepare(catalog(t), "select id from t t1 where exists (select * from t t2 "
          + "where t2.x = t1.x and t2.v <> t1.v)").explain();
      assertTrue(nullable.contains("inner join"), "v may be null: the general plan\n" + nullable);
    }
  }

  private static Catalog catalog(Table t) {
    return new Catalog().register("t", t).declareKey("t", List.of("id"));
  }

  private static Table table(List<Row> rows, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("id", "x", "v"),
        List.of(ColumnType.INT64, ColumnType.INT64, ColumnType.INT32), memory.arrow())) {
      for (Row row : rows) {
        builder.appendLong(row.id());
        builder.appendLongOrNull(row.x());
        builder.appendLongOrNull(row.v() == null ? null : row.v().longValue());
        builder.endRow();
      }
      return builder.build();
    }
  }
}
