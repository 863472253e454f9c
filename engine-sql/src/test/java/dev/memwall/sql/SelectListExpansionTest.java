package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.Catalog;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The validator's kept select-list expansions against Calcite's expanding each time: the same relational
 * plan, field names included, for ORDER BY terms naming select items by alias and by ordinal, stars,
 * expressions, aggregates, subqueries and aliases that shadow columns; and a select list whose items
 * changed is expanded anew.
 */
@ExtendWith(LeakCheck.class)
class SelectListExpansionTest {
  private static final List<String> STATEMENTS = List.of(
      "select k as x, s from t order by x",
      "select k, s from t order by 2 desc, 1",
      "select * from t order by s nulls first, k",
      "select t.*, k + 1 as k1 from t order by k1 desc",
      "select k as s, s as k from t order by s, k",
      "select s, count(*) as n, sum(d) as total from t group by s order by total desc, n, s",
      "select s, sum(d) from t group by s having sum(d) > 1 order by 2",
      "select k, (select max(d) from t u where u.k = t.k) as m from t order by m, k",
      "select k from t where k in (select k from t u where u.s = 'x' order by k) order by k desc",
      "select x from (select k as x, s from t order by x limit 2) order by x",
      "select k as x from t union all select k from t order by x",
      "select distinct s as v from t order by v",
      "select a.k as ak, b.s as bs from t a, t b where a.k = b.k order by ak, bs",
      "select upper(s) as s from t order by s");

  @Test
  void keptExpansionsConvertAsCalcitesOwn(EngineMemory memory) throws Exception {
    try (Table t = RedundantProjectsTest.table(memory)) {
      Prepare.CatalogReader reader = SqlCatalog.of(new Catalog().register("t", t));
      for (String sql : STATEMENTS) {
        SqlFrontEnd.Validator keeping = new SqlFrontEnd.Validator(reader, true);
        RelRoot kept = SqlFrontEnd.relational(sql, reader, keeping).getFirst();
        if (sql.startsWith("select k as x, s") || sql.contains("order by 2 desc") || sql.contains("order by total")
            || sql.contains("order by ak")) {
          assertTrue(keeping.reused() > 0, "an ORDER BY naming a select item reads the kept expansion: " + sql);
        }
        RelRoot calcite = SqlFrontEnd.relational(sql, reader, new SqlFrontEnd.Validator(reader, false)).getFirst();
        assertEquals(RelOptUtil.toString(calcite.rel), RelOptUtil.toString(kept.rel), sql);
        assertEquals(calcite.validatedRowType.getFullTypeString(), kept.validatedRowType.getFullTypeString(), sql);
        assertEquals(calcite.collation, kept.collation, sql);
        assertEquals(calcite.fields, kept.fields, sql);
      }
    }
  }

  @Test
  void anExpansionIsKeptForTheSameItemsOnlyAndMadeAgainForChangedOnes(EngineMemory memory) throws Exception {
    try (Table t = RedundantProjectsTest.table(memory)) {
      Prepare.CatalogReader reader = SqlCatalog.of(new Catalog().register("t", t));
      SqlFrontEnd.Validator validator = new SqlFrontEnd.Validator(reader, true);
      SqlSelect select = (SqlSelect) validator.validate(
          SqlParser.create("select k as x, s from t", SqlFrontEnd.PARSER).parseQuery());
      SqlNodeList first = validator.expandStar(select.getSelectList(), select, false);
      SqlNodeList again = validator.expandStar(select.getSelectList(), select, false);
      assertEquals(1, validator.reused());
      assertEquals(2, again.size());
      for (int i = 0; i < first.size(); i++) {
        assertSame(first.get(i), again.get(i), "the kept expansion, item " + i);
      }
      assertEquals(List.of(first.get(0), first.get(1)),
          List.copyOf(validator.getRawSelectScope(select).getExpandedSelectList()), "the scope holds the expansion");

      select.getSelectList().set(1, new SqlIdentifier("d", SqlParserPos.ZERO));
      SqlNodeList changed = validator.expandStar(select.getSelectList(), select, false);
      assertEquals(1, validator.reused(), "a changed list is expanded anew");
      assertNotSame(first.get(1), changed.get(1));
      assertTrue(changed.get(1).toString().contains("D") || changed.get(1).toString().contains("d"), changed.toString());
      SqlNode unchanged = changed.get(0);
      assertEquals(first.get(0).toString(), unchanged.toString(), "the same item expands as before");

      SqlNodeList withSystemColumns = validator.expandStar(select.getSelectList(), select, true);
      assertEquals(2, withSystemColumns.size(), "with system columns: Calcite's expansion, not kept");
      assertNotSame(changed.get(0), withSystemColumns.get(0));
    }
  }
}
