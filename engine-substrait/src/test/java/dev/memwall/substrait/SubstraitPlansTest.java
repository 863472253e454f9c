package dev.memwall.substrait;

import static dev.memwall.substrait.Fixture.B;
import static dev.memwall.substrait.Fixture.N;
import static dev.memwall.substrait.Fixture.call;
import static dev.memwall.substrait.Fixture.row;
import static dev.memwall.substrait.Fixture.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import io.substrait.expression.Expression;
import io.substrait.expression.ExpressionCreator;
import io.substrait.plan.Plan;
import io.substrait.plan.PlanProtoConverter;
import io.substrait.relation.Join;
import io.substrait.relation.NamedScan;
import io.substrait.relation.Rel;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Substrait plans built with Substrait's Java API, run on two small tables with nulls and repeated keys. */
@ExtendWith(LeakCheck.class)
class SubstraitPlansTest {

  /** group by grp over qty > 1: sum(amount), count(*), max(price), ordered by grp, first two. */
  private static Plan aggregation() {
    NamedScan t = Fixture.scanT();
    Rel filtered = B.filter(input -> call("gt", N.BOOLEAN, B.fieldReference(input, 4), B.i32(1)), t);
    Rel grouped = B.aggregate(input -> B.grouping(input, 1),
        input -> List.of(B.measure(Fixture.aggregate("sum", N.decimal(38, 2), Expression.AggregationInvocation.ALL,
            B.fieldReference(input, 2))), B.measure(Fixture.aggregate("count", N.I64,
            Expression.AggregationInvocation.ALL)), B.max(input, 5)), filtered);
    Rel sorted = B.sort(input -> B.sortFields(input, 0), grouped);
    return plan(B.limit(2, sorted), "g", "total", "n", "top");
  }

  @Test
  void filterAggregateSortAndFetchRunAsTheirSql(EngineMemory memory) {
    try (Table t = Fixture.t(memory)) {
      Catalog catalog = new Catalog().register("T", t);
      try (Table result = SubstraitPlans.execute(aggregation(), catalog, new ExecutionContext(memory, 2))) {
        assertEquals(List.of("g", "total", "n", "top"), result.schema().getFields().stream().map(f -> f.getName()).toList());
        assertEquals(List.of(row("a", new BigDecimal("1001.49"), 3L, 3.5), row("abc", new BigDecimal("0.00"), 1L, 4.0)),
            rows(Table.class.cast(result)));
      }
    }
  }

  @Test
  void aProtobufPlanAndAStreamGiveTheSameRows(EngineMemory memory) throws Exception {
    try (Table t = Fixture.t(memory)) {
      Catalog catalog = new Catalog().register("t", t);
      ExecutionContext context = new ExecutionContext(memory, 1);
      io.substrait.proto.Plan proto = new PlanProtoConverter().toProto(aggregation());
      List<List<Object>> fromProto = rows(SubstraitPlans.relation(SubstraitPlans.prepare(proto, catalog), context)
          .toTable());
      assertEquals(rows(SubstraitPlans.execute(aggregation(), catalog, context)), fromProto);
      long streamed = 0;
      try (ArrowReader reader = SubstraitPlans.stream(aggregation(), catalog, context, memory.arrow())) {
        while (reader.loadNextBatch()) {
          streamed += reader.getVectorSchemaRoot().getRowCount();
        }
      }
      assertEquals(2, streamed);
    }
  }

  @Test
  void predicatesAndScalarFunctionsFollowSql(EngineMemory memory) {
    NamedScan t = Fixture.scanT();
    // (grp like 'a%' or id in (5, 6)) and amount is not null and day < date '1994-01-01' + interval '1' year
    Rel filtered = B.filter(input -> B.and(
        B.or(call("like", N.BOOLEAN, B.fieldReference(input, 1), B.str("a%")),
            B.singleOrList(B.fieldReference(input, 0), ExpressionCreator.i64(false, 5), ExpressionCreator.i64(false, 6))),
        call("is_not_null", N.BOOLEAN, B.fieldReference(input, 2)),
        call("lt", N.BOOLEAN, B.fieldReference(input, 3), call("add", N.DATE, Fixture.date("1994-01-01"),
            ExpressionCreator.intervalYear(false, 1, 0)))), t);
    // id, substring(grp, 1, 1), extract(year from day), coalesce(qty, -1), case when price > 2 then 1 else 0,
    // amount * 2 - 1 (decimal), not (qty >= 3)
    Rel projected = B.project(input -> List.of(
        call("substring", N.STRING, B.fieldReference(input, 1), B.i32(1), B.i32(1)),
        call("extract", N.I64, io.substrait.expression.EnumArg.of("YEAR"), B.fieldReference(input, 3)),
        call("coalesce", N.I32, B.fieldReference(input, 4), B.i32(-1)),
        B.ifThen(List.of(B.ifClause(call("gt", N.BOOLEAN, B.fieldReference(input, 5), B.fp64(2)), B.i32(1))), B.i32(0)),
        call("subtract", N.decimal(38, 2), call("multiply", N.decimal(38, 2), B.fieldReference(input, 2),
            B.cast(B.i32(2), N.decimal(18, 0))), ExpressionCreator.decimal(false, BigDecimal.ONE, 18, 0))),
        B.remap(0, 6, 7, 8, 9, 10), filtered);
    Rel sorted = B.sort(input -> B.sortFields(input, 0), projected);
    try (Table table = Fixture.t(memory)) {
      Catalog catalog = new Catalog().register("t", table);
      List<List<Object>> rows = rows(SubstraitPlans.execute(plan(sorted, "id", "initial", "year", "qty", "pricey",
          "twice"), catalog, ExecutionContext.singleThreaded(memory)));
      // day < 1995-01-01 is day < 9131: ids 1, 2 (b, not like a%, not in), 7; id 5 has day 10000; 3 has no amount
      assertEquals(List.of(
          row(1L, "a", 1991L, 3, 0, new BigDecimal("2.00")),
          row(7L, "a", 1994L, 9, 1, new BigDecimal("1998.98"))), normalize(rows));
    }
  }

  /** Integral results as Long or Integer by their type's width: the year and the case as memwall types them. */
  private static List<List<Object>> normalize(List<List<Object>> rows) {
    List<List<Object>> normalized = new ArrayList<>();
    for (List<Object> row : rows) {
      List<Object> values = new ArrayList<>(row);
      values.set(2, ((Number) values.get(2)).longValue());
      values.set(3, ((Number) values.get(3)).intValue());
      values.set(4, ((Number) values.get(4)).intValue());
      normalized.add(values);
    }
    return normalized;
  }

  private static Rel join(Join.JoinType type, boolean withLabelX) {
    return B.join(input -> {
      Expression keys = call("equal", N.BOOLEAN, B.fieldReference(List.of(input.left(), input.right()), 0),
          B.fieldReference(List.of(input.left(), input.right()), 6));
      return withLabelX ? B.and(keys, call("equal", N.BOOLEAN,
          B.fieldReference(List.of(input.left(), input.right()), 7), B.str("x"))) : keys;
    }, type, Fixture.scanT(), Fixture.scanU());
  }

  @Test
  void innerLeftRightSemiAndAntiJoinsKeepTheRowsSqlDoes(EngineMemory memory) {
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      ExecutionContext context = new ExecutionContext(memory, 2);
      assertEquals(Set.of("1 x", "3 x"), pairs(run(join(Join.JoinType.INNER, true), catalog, context), 0, 7));
      assertEquals(Set.of("1 x", "2 null", "3 x", "4 null", "5 null", "6 null", "7 null", "8 null"),
          pairs(run(join(Join.JoinType.LEFT, true), catalog, context), 0, 7));
      assertEquals(Set.of("1 x", "1 y", "3 x", "6 null", "null z", "null x"),
          pairs(run(join(Join.JoinType.RIGHT, false), catalog, context), 0, 7));
      assertEquals(new TreeSet<>(List.of(1L, 3L, 6L)), ids(run(join(Join.JoinType.LEFT_SEMI, false), catalog, context)));
      assertEquals(new TreeSet<>(List.of(2L, 4L, 5L, 7L, 8L)),
          ids(run(join(Join.JoinType.LEFT_ANTI, false), catalog, context)));
    }
  }

  @Test
  void anInSubqueryBecomesASemiJoin(EngineMemory memory) {
    // select * from t where id in (select uid from u) and qty > 2: ids 1 (qty 3), 3 (7) and 6 (5)
    Rel filtered = B.filter(input -> B.and(call("gt", N.BOOLEAN, B.fieldReference(input, 4), B.i32(2)),
        B.inPredicate(B.project(inner -> List.of(), B.remap(0), Fixture.scanU()), B.fieldReference(input, 0))),
        Fixture.scanT());
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      assertEquals(new TreeSet<>(List.of(1L, 3L, 6L)), ids(run(filtered, catalog, new ExecutionContext(memory, 2))));
    }
  }

  @Test
  void aCorrelatedExistsBecomesASemiJoinAndNotExistsAnAntiJoin(EngineMemory memory) {
    // select * from t where exists (select * from u where uid = t.id and label = 'x'): ids 1 and 3
    Rel exists = B.filter(input -> B.exists(B.filter(inner -> B.and(call("equal", N.BOOLEAN, B.fieldReference(inner, 0),
        io.substrait.expression.FieldReference.newRootStructOuterReference(0, N.I64, 1)),
        call("equal", N.BOOLEAN, B.fieldReference(inner, 1), B.str("x"))), Fixture.scanU())), Fixture.scanT());
    // select * from t where not exists (select * from u where t.id = uid): ids 2, 4, 5, 7 and 8
    Rel notExists = B.filter(input -> call("not", N.BOOLEAN, B.exists(B.filter(inner -> call("equal", N.BOOLEAN,
        io.substrait.expression.FieldReference.newRootStructOuterReference(0, N.I64, 1), B.fieldReference(inner, 0)),
        Fixture.scanU()))), Fixture.scanT());
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      ExecutionContext context = new ExecutionContext(memory, 2);
      assertEquals(new TreeSet<>(List.of(1L, 3L)), ids(run(exists, catalog, context)));
      assertEquals(new TreeSet<>(List.of(2L, 4L, 5L, 7L, 8L)), ids(run(notExists, catalog, context)));
    }
  }

  @Test
  void anUncorrelatedScalarSubqueryIsAValueTheFilterReads(EngineMemory memory) {
    // select * from t where id > (select max(uid) from u) - 5: max(uid) is 9, ids 5 to 8
    Rel filtered = B.filter(input -> call("gt", N.BOOLEAN, B.fieldReference(input, 0), call("subtract", N.I64, B.scalarSubquery(
        B.aggregate(inner -> B.grouping(), inner -> List.of(B.max(inner, 0)), Fixture.scanU()), N.I64),
        ExpressionCreator.i64(false, 5))), Fixture.scanT());
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      assertEquals(new TreeSet<>(List.of(5L, 6L, 7L, 8L)), ids(run(filtered, catalog, new ExecutionContext(memory, 2))));
    }
  }

  @Test
  void aCorrelatedScalarSubqueryIsGroupedByItsCorrelationAndJoined(EngineMemory memory) {
    // select * from t where id = (select max(uid) from u where uid = t.id): ids 1, 3 and 6; id 2 has no group
    Rel filtered = B.filter(input -> call("equal", N.BOOLEAN, B.fieldReference(input, 0), B.scalarSubquery(
        B.aggregate(inner -> B.grouping(), inner -> List.of(B.max(inner, 0)), B.filter(inner -> call("equal", N.BOOLEAN,
            B.fieldReference(inner, 0), io.substrait.expression.FieldReference.newRootStructOuterReference(0, N.I64, 1)),
            Fixture.scanU())), N.I64)), Fixture.scanT());
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      assertEquals(new TreeSet<>(List.of(1L, 3L, 6L)), ids(run(filtered, catalog, new ExecutionContext(memory, 2))));
    }
  }

  @Test
  void aFilterOverACrossProductBecomesAJoinWithItsConditionsPushedDown(EngineMemory memory) {
    Rel cross = B.cross(Fixture.scanT(), Fixture.scanU());
    Rel filtered = B.filter(input -> B.and(call("equal", N.BOOLEAN, B.fieldReference(input, 0), B.fieldReference(input, 6)),
        call("gt", N.BOOLEAN, B.fieldReference(input, 4), B.i32(4))), cross);
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      Plan plan = plan(filtered, names(8));
      String explain = SubstraitPlans.prepare(plan, catalog).explain();
      assertTrue(explain.contains("inner join on [uid] = [id]"), "the filtered t (qty over 4 in [1, 9], a null: est. 4.4 of 8 rows) builds, not u (6): " + explain);
      assertFalse(explain.contains("cross"), explain);
      assertTrue(explain.contains("  filter Comparison[op=GT"), "qty > 4 is pushed onto t's scan: " + explain);
      assertEquals(Set.of("3 x", "6 null"),
          pairs(SubstraitPlans.execute(plan, catalog, new ExecutionContext(memory, 2)), 0, 7));
    }
  }

  @Test
  void aCrossProductWithoutConditionPairsEveryRow(EngineMemory memory) {
    Rel counted = B.aggregate(input -> B.grouping(), input -> List.of(B.measure(Fixture.aggregate("count", N.I64,
        Expression.AggregationInvocation.ALL))), B.cross(Fixture.scanT(), Fixture.scanU()));
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      assertEquals(List.of(row(48L)), rows(SubstraitPlans.execute(plan(counted, "n"), catalog,
          new ExecutionContext(memory, 2))));
    }
  }

  private static Table run(Rel rel, Catalog catalog, ExecutionContext context) {
    int fields = rel.getRecordType().fields().size();
    return SubstraitPlans.execute(plan(rel, names(fields)), catalog, context);
  }

  private static String[] names(int count) {
    return java.util.stream.IntStream.range(0, count).mapToObj(i -> "c" + i).toArray(String[]::new);
  }

  private static Set<String> pairs(Table table, int first, int second) {
    Set<String> pairs = new java.util.HashSet<>();
    for (List<Object> row : rows(table)) {
      pairs.add(row.get(first) + " " + row.get(second));
    }
    return pairs;
  }

  private static Set<Long> ids(Table table) {
    Set<Long> ids = new TreeSet<>();
    rows(table).forEach(row -> ids.add((Long) row.getFirst()));
    return ids;
  }

  static Plan plan(Rel rel, String... names) {
    return Plan.builder().addRoots(Plan.Root.builder().input(rel).addNames(names).build()).build();
  }
}
