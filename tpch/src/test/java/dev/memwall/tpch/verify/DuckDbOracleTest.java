package dev.memwall.tpch.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.DecimalColumn;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.LoopQ6;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchParameters;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(LeakCheck.class)
class DuckDbOracleTest {
  static final double SF = 0.01;
  @TempDir Path cache;

  @Test
  void loadsTheSameDataExactlyAndAgreesWithALoopQ6(EngineMemory memory) throws Exception {
    try (TpchDatabase db = TpchDatabase.load(cache, SF, new TpchDataGenerator(2, true), memory);
        DuckDbOracle oracle = DuckDbOracle.of(db, 2, memory)) {
      for (String table : db.tables().keySet()) {
        assertEquals(db.table(table).rowCount(), oracle.rowCount(table), table);
      }
      // checkpointed: stored compressed, as a loaded DuckDB database is, not as appended
      Number compressed = (Number) oracle.runSql("SELECT count(*) FROM pragma_storage_info('lineitem') "
          + "WHERE column_name = 'l_shipdate' AND compression <> 'Uncompressed'").rows().getFirst().getFirst();
      assertTrue(compressed.longValue() > 0, "lineitem is stored uncompressed: the load was not checkpointed");
      // Decimals arrive as exact DECIMAL(15,2): DuckDB's sum equals memwall's sum of cents.
      long cents = 0;
      for (Batch batch : db.table("lineitem").batches()) {
        DecimalColumn price = (DecimalColumn) batch.column("l_extendedprice");
        for (int row = 0; row < batch.rowCount(); row++) {
          cents += price.get(row);
        }
      }
      QueryResult sum = oracle.runSql("SELECT sum(l_extendedprice), typeof(any_value(l_extendedprice)), "
          + "typeof(any_value(l_shipdate)), any_value(l_returnflag) IN ('A','N','R'), typeof(any_value(l_shipmode)) FROM lineitem");
      assertEquals(BigDecimal.valueOf(cents, 2), sum.rows().getFirst().get(0));
      assertEquals("DECIMAL(15,2)", sum.rows().getFirst().get(1));
      assertEquals("DATE", sum.rows().getFirst().get(2));
      assertEquals(true, sum.rows().getFirst().get(3));
      assertEquals("VARCHAR", sum.rows().getFirst().get(4));
      QueryResult first = oracle.runSql(
          "SELECT l_orderkey, l_linenumber, l_shipdate, l_shipinstruct, l_comment FROM lineitem ORDER BY l_orderkey, l_linenumber LIMIT 1");
      Batch batch = db.table("lineitem").batches().getFirst();
      assertEquals(List.of(batch.column("l_orderkey").getObject(0), batch.column("l_linenumber").getObject(0),
          batch.column("l_shipdate").getObject(0).toString(), batch.column("l_shipinstruct").getObject(0),
          batch.column("l_comment").getObject(0)),
          List.of(first.rows().getFirst().get(0), first.rows().getFirst().get(1),
              ColumnPrecision.text(first.rows().getFirst().get(2)), first.rows().getFirst().get(3),
              first.rows().getFirst().get(4)));

      QueryResult duckQ6 = oracle.runSql(DuckDbOracle.tpchSql(TpchParameters.validation(6, SF)));
      ExpectedResult expected = ResultComparator.expectedFrom(6, duckQ6);
      try (Table memwall = new LoopQ6().run(db, ExecutionContext.singleThreaded(memory))) {
        var outcome = ResultComparator.compare(memwall, expected);
        assertTrue(outcome.matches(), outcome.message());
        // Exactly equal, not just within the $100 of the SUM rule.
        assertEquals(0, ((BigDecimal) duckQ6.rows().getFirst().getFirst())
            .compareTo(((DecimalColumn) memwall.batches().getFirst().column(0)).getDecimal(0)));
      }
      try (Table skewed = new LoopQ6(6, 10_001).run(db, ExecutionContext.singleThreaded(memory))) {
        var outcome = ResultComparator.compare(skewed, expected);
        assertFalse(outcome.matches());
        assertTrue(outcome.message().contains("revenue"), outcome.message());
      }
    }
  }

  @Test
  void everyQueryTextRunsOnDuckDb(EngineMemory memory) throws Exception {
    try (TpchDatabase db = TpchDatabase.load(cache, SF, new TpchDataGenerator(2, true), memory);
        DuckDbOracle oracle = DuckDbOracle.of(db, 2, memory)) {
      for (int query = 1; query <= 22; query++) {
        QueryResult result = oracle.runSql(DuckDbOracle.tpchSql(TpchParameters.validation(query, SF)));
        assertEquals(ColumnPrecision.forQuery(query).size(), result.columns().size(), "Q" + query + " columns");
        assertFalse(result.rows().isEmpty(), "Q" + query + " returned no rows");
        for (long seed = 1; seed <= 2; seed++) {
          QueryParameters random = TpchParameters.random(query, SF, seed);
          assertEquals(ColumnPrecision.forQuery(query).size(), oracle.runSql(DuckDbOracle.tpchSql(random)).columns().size(),
              random.toString());
        }
      }
    }
  }
}
