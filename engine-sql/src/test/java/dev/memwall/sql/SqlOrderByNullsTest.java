package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.TableRows;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * ORDER BY's null order as the SQL says it (by default nulls last in both directions, as DuckDB
 * sorts them; or NULLS FIRST / LAST spelled out), and negative zero tying with zero so that the next
 * key decides, as {@code =} has them equal.
 */
@ExtendWith(LeakCheck.class)
class SqlOrderByNullsTest {

  @Test
  void nullsComeWhereTheStatementPutsThem(EngineMemory memory) {
    try (Table t = table(memory)) {
      Catalog catalog = new Catalog().register("t", t);
      assertEquals(Arrays.asList(1L, 2L, null), ids(catalog, "select id from t order by id", memory));
      assertEquals(Arrays.asList(2L, 1L, null), ids(catalog, "select id from t order by id desc", memory));
      assertEquals(Arrays.asList(null, 2L, 1L), ids(catalog, "select id from t order by id desc nulls first", memory));
      assertEquals(Arrays.asList(null, 1L, 2L), ids(catalog, "select id from t order by id asc nulls first", memory));
      assertEquals(Arrays.asList(2L, 1L, null), ids(catalog, "select id from t order by id desc nulls last", memory));
      assertEquals(Arrays.asList(2L, 1L), ids(catalog, "select id from t order by id desc limit 2", memory));
      assertEquals(Arrays.asList(null, 2L), ids(catalog, "select id from t order by id desc nulls first limit 2", memory));
    }
  }

  @Test
  void negativeZeroTiesWithZeroSoTheNextKeyDecides(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("d", "id"), List.of(ColumnType.FLOAT64, ColumnType.INT64),
        memory.arrow())) {
      builder.appendDouble(-0.0).appendLong(2).endRow();
      builder.appendDouble(0.0).appendLong(1).endRow();
      try (Table t = builder.build()) {
        Catalog catalog = new Catalog().register("t", t);
        assertEquals(List.of(1L, 2L), ids(catalog, "select id from t order by d, id", memory));
      }
    }
  }

  /** id: 2, null, 1 (in that order). */
  private static Table table(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("id"), List.of(ColumnType.INT64), memory.arrow())) {
      builder.appendLong(2).endRow();
      builder.appendNull().endRow();
      builder.appendLong(1).endRow();
      return builder.build();
    }
  }

  private static List<Object> ids(Catalog catalog, String sql, EngineMemory memory) {
    try (Table result = Memwall.sql(catalog, sql, ExecutionContext.singleThreaded(memory))) {
      return Arrays.asList(TableRows.of(result).stream().map(row -> row.get(row.size() - 1)).toArray());
    }
  }
}
