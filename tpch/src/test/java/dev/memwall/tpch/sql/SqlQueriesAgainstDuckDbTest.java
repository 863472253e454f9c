package dev.memwall.tpch.sql;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.sql.Memwall;
import dev.memwall.sql.SqlException;
import dev.memwall.substrait.Catalog;
import dev.memwall.tpch.run.TpchCatalog;
import dev.memwall.substrait.UnsupportedPlanException;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.verify.DuckDbOracle;
import dev.memwall.tpch.verify.ResultComparator;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TPC-H queries from their official SQL text (DuckDB's templates, parameters substituted)
 * through {@link Memwall#sql}: Isthmus plans them into Substrait, the consumer runs them. The
 * supported ones match DuckDB on the same data at SF 0.01 for the validation parameters and two
 * random sets, on one and two threads; every other one is refused before anything runs, with the
 * reason this step expects. A query that starts working, or stops, changes {@link #SUPPORTED}.
 */
@ExtendWith(LeakCheck.class)
class SqlQueriesAgainstDuckDbTest {
  /** The queries the SQL path runs and verifies. */
  static final List<Integer> SUPPORTED = IntStream.rangeClosed(1, 22).boxed().toList();

  /** Why each other query is refused: a fragment of its refusal's message (none is refused now). */
  static final Map<Integer, String> REFUSED = Map.of();

  static final double SCALE_FACTOR = 0.01;

  @TempDir Path cache;

  @Test
  void supportedQueriesMatchDuckDbAndTheOthersAreRefusedBeforeRunning(EngineMemory memory) throws Exception {
    for (int number = 1; number <= 22; number++) {
      assertTrue(SUPPORTED.contains(number) != REFUSED.containsKey(number), "Q" + number + " is listed exactly once");
    }
    try (TpchDatabase db = TpchDatabase.load(cache, SCALE_FACTOR, new TpchDataGenerator(2, true), memory);
        DuckDbOracle oracle = DuckDbOracle.of(db, 1, memory)) {
      Catalog catalog = TpchCatalog.of(db);
      for (int number : SUPPORTED) {
        for (QueryParameters parameters : List.of(TpchParameters.validation(number, SCALE_FACTOR),
            TpchParameters.random(number, SCALE_FACTOR, 1), TpchParameters.random(number, SCALE_FACTOR, 2))) {
          String sql = DuckDbOracle.tpchSql(parameters);
          var expected = ResultComparator.expectedFrom(number, oracle.runSql(sql));
          for (int threads = 1; threads <= 2; threads++) {
            try (Table actual = Memwall.sql(catalog, sql, new ExecutionContext(memory, threads))) {
              var outcome = ResultComparator.compare(actual, expected);
              assertTrue(outcome.matches(), parameters + " from SQL on " + threads + " threads: " + outcome.message());
            }
          }
        }
      }
      for (Map.Entry<Integer, String> refused : REFUSED.entrySet()) {
        String sql = DuckDbOracle.tpchSql(TpchParameters.validation(refused.getKey(), SCALE_FACTOR));
        RuntimeException e = assertThrows(RuntimeException.class, () -> Memwall.prepare(catalog, sql),
            "Q" + refused.getKey() + " is refused while it is prepared");
        if (!(e instanceof UnsupportedPlanException) && !(e instanceof SqlException)) {
          fail("Q" + refused.getKey() + " refused with an unnamed exception", e);
        }
        assertTrue(e.getMessage().contains(refused.getValue()), "Q" + refused.getKey() + ": " + e.getMessage());
      }
    }
  }
}
