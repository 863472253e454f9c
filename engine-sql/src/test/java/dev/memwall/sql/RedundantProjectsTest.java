package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.Catalog;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.rules.CoreRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The front end's one-pass removal of projections that only pass their input on, against what
 * Calcite's {@code PROJECT_REMOVE} rule in a rule planner (as Isthmus runs it) makes of the same
 * statements: the same plan, field names included, for trivial projections alone, renamed, stacked
 * and under joins, aggregates and subqueries, and for projections that compute, reorder or drop
 * columns, which must stay.
 */
@ExtendWith(LeakCheck.class)
class RedundantProjectsTest {
  private static final List<String> STATEMENTS = List.of(
      "select * from t",
      "select k, s, d from t",
      "select k as kk, s, d as dd from t",
      "select kk from (select k as kk, s, d from t) where kk > 1",
      "select * from (select * from (select k, s, d from t)) as u",
      "select k + 1 as k1 from t",
      "select s, k from t",
      "select k from t",
      "select a.k, b.s from t a, t b where a.k = b.k and b.s like 'x%'",
      "select k, count(*) as n, sum(d) from (select * from t) group by k having count(*) > 1 order by k",
      "select k from t where k in (select k from (select * from t) where d > 0.5) order by k",
      "select * from t where exists (select * from t u where u.k = t.k and u.s <> t.s)",
      "select k, (select max(d) from t u where u.k = t.k) as m from t");

  /** k (BIGINT), s (VARCHAR), d (DECIMAL(18, 2)): one row, as plans over it depend on the types alone. */
  static Table table(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "s", "d"),
        List.of(ColumnType.INT64, ColumnType.STRING, ColumnType.decimal(2)), memory.arrow())) {
      builder.appendLong(1).appendStringOrNull("x").appendLong(150).endRow();
      return builder.build();
    }
  }

  private static RelNode byRulePlanner(RelNode rel) {
    HepPlanner planner = new HepPlanner(HepProgram.builder().addRuleInstance(CoreRules.PROJECT_REMOVE).build());
    planner.setRoot(rel);
    return planner.findBestExp();
  }

  @Test
  void onePassRemovesWhatTheRulePlannerRemovesAndKeepsTheRest(EngineMemory memory) throws Exception {
    try (Table t = table(memory)) {
      Catalog catalog = new Catalog().register("t", t);
      int changed = 0;
      for (String sql : STATEMENTS) {
        RelRoot root = SqlFrontEnd.relational(sql, SqlCatalog.of(catalog)).getFirst();
        String converted = RelOptUtil.toString(root.rel);
        String expected = RelOptUtil.toString(byRulePlanner(root.rel));
        String actual = RelOptUtil.toString(SqlFrontEnd.withoutRedundantProjects(root.rel));
        assertEquals(expected, actual, sql);
        changed += converted.equals(actual) ? 0 : 1;
      }
      assertNotEquals(0, changed, "no statement had a projection to remove");
      RelRoot computed = SqlFrontEnd.relational("select k + 1 as k1, s from t", SqlCatalog.of(catalog)).getFirst();
      assertEquals(RelOptUtil.toString(computed.rel),
          RelOptUtil.toString(SqlFrontEnd.withoutRedundantProjects(computed.rel)));
    }
  }
}
