package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.TableRows;
import io.substrait.isthmus.sql.SubstraitCreateStatementParser;
import io.substrait.plan.Plan;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The SQL declaration of a catalog's tables: kept while the catalog is unchanged, made again after
 * a registration, shared by concurrent statements, and typed as Isthmus' CREATE TABLE types them.
 */
@ExtendWith(LeakCheck.class)
class SqlCatalogTest {
  private static final List<String> STATEMENTS = List.of(
      "select k, count(*) as n from t where k > 1 group by k order by k",
      "select s, sum(d) as total from t group by s order by total desc",
      "select a.k from t a, t b where a.k = b.k and b.s like 'x%' order by a.k",
      "select k from t where k in (select k from t where d > 0.5) order by k");

  /** t(k INT64, s STRING, d DECIMAL(2), x FLOAT64): three rows, a null in each of s, d and x, a duplicate key. */
  private static Table table(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "s", "d", "x"),
        List.of(ColumnType.INT64, ColumnType.STRING, ColumnType.decimal(2), ColumnType.FLOAT64), memory.arrow())) {
      builder.appendLong(1).appendString("x1".getBytes(StandardCharsets.UTF_8)).appendLong(150).appendNull().endRow();
      builder.appendLong(2).appendNull().appendNull().appendDouble(-0.0).endRow();
      builder.appendLong(2).appendString("y".getBytes(StandardCharsets.UTF_8)).appendLong(-99).appendDouble(1e300)
          .endRow();
      return builder.build();
    }
  }

  @Test
  void theDeclarationIsKeptUntilATableIsRegisteredAndPlansRepeatTheFirst(EngineMemory memory) {
    try (Table t = table(memory)) {
      Catalog catalog = new Catalog().register("t", t);
      Prepare.CatalogReader first = SqlCatalog.of(catalog);
      List<Plan> plans = STATEMENTS.stream().map(sql -> Memwall.substrait(catalog, sql)).toList();
      for (int i = 0; i < 5; i++) {
        for (int s = 0; s < STATEMENTS.size(); s++) {
          assertEquals(plans.get(s), Memwall.substrait(catalog, STATEMENTS.get(s)), "plan " + s + ", repetition " + i);
        }
      }
      assertSame(first, SqlCatalog.of(catalog), "planning did not declare the tables again");

      SqlException unknown = assertThrows(SqlException.class, () -> Memwall.prepare(catalog, "select k from Later"));
      assertTrue(unknown.getMessage().contains("'Later' not found"), unknown.getMessage());
      long version = catalog.version();
      catalog.register("later", t);
      assertEquals(version + 1, catalog.version());
      Prepare.CatalogReader second = SqlCatalog.of(catalog);
      assertNotSame(first, second, "a registration makes the declaration again");
      assertSame(second, SqlCatalog.of(catalog));
      try (Table result = Memwall.sql(catalog, "select count(*) as n from Later", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(List.of(3L)), TableRows.of(result), "the new table is found, in any case");
      }
      assertEquals(plans.getFirst(), Memwall.substrait(catalog, STATEMENTS.getFirst()), "t is planned as before");
      assertThrows(IllegalArgumentException.class, () -> catalog.register("LATER", t));
      assertEquals(version + 1, catalog.version(), "a refused registration changes nothing");
    }
  }

  @Test
  void concurrentStatementsOverOneCatalogPlanAsOneThreadDoes(EngineMemory memory) throws Exception {
    try (Table t = table(memory)) {
      Catalog catalog = new Catalog().register("t", t);
      List<Plan> expected = STATEMENTS.stream().map(sql -> Memwall.substrait(new Catalog().register("t", t), sql)).toList();
      ExecutorService threads = Executors.newFixedThreadPool(4);
      try {
        List<Future<List<Plan>>> futures = new ArrayList<>();
        for (int task = 0; task < 8; task++) {
          futures.add(threads.submit(() -> {
            List<Plan> planned = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
              STATEMENTS.forEach(sql -> planned.add(Memwall.substrait(catalog, sql)));
            }
            return planned;
          }));
        }
        for (Future<List<Plan>> future : futures) {
          List<Plan> planned = future.get();
          for (int i = 0; i < planned.size(); i++) {
            assertEquals(expected.get(i % STATEMENTS.size()), planned.get(i), "statement " + i % STATEMENTS.size());
          }
        }
      } finally {
        threads.shutdownNow();
      }
    }
  }

  @Test
  void columnsAreTypedAsIsthmusCreateTableTypesThemAndUnknownKindsAreLeftOut(EngineMemory memory) throws Exception {
    try (TableBuilder builder = new TableBuilder(List.of("i", "l", "f", "d", "m", "s", "b", "ts"),
        List.of(ColumnType.INT32, ColumnType.INT64, ColumnType.FLOAT64, ColumnType.DATE, ColumnType.decimal(4),
            ColumnType.STRING, ColumnType.BOOLEAN, ColumnType.timestamp(TimeUnit.MICROSECOND, null)), memory.arrow());
        Table t = builder.build()) {
      List<RelDataTypeField> declared = SqlCatalog.declare(new Catalog().register("Mixed Case", t))
          .getTable(List.of("mixed case")).getRowType().getFieldList();
      List<RelDataTypeField> created = SubstraitCreateStatementParser.processCreateStatementsToCatalog(
          "CREATE TABLE t (i INTEGER, l BIGINT, f DOUBLE, d DATE, m DECIMAL(18, 4), s VARCHAR, b BOOLEAN)")
          .getTable(List.of("T")).getRowType().getFieldList();
      assertEquals(List.of("i", "l", "f", "d", "m", "s", "b"), declared.stream().map(RelDataTypeField::getName).toList(),
          "stored names; the timestamp is left out");
      assertEquals(created.stream().map(f -> f.getType().getFullTypeString()).toList(),
          declared.stream().map(f -> f.getType().getFullTypeString()).toList());
      SqlException timestamp = assertThrows(SqlException.class,
          () -> Memwall.substrait(new Catalog().register("Mixed Case", t), "select ts from \"Mixed Case\""));
      assertTrue(timestamp.getMessage().contains("'ts' not found"), timestamp.getMessage());
    }
  }
}
