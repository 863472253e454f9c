package dev.memwall.tpch.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.verify.DuckDbOracle;
import dev.memwall.tpch.verify.ResultComparator;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every registered query against embedded DuckDB on the same generated data: full result sets
 * under the TPC-H comparison rules, on one and two threads, at two scale factors.
 */
@ExtendWith(LeakCheck.class)
class QueriesAgainstDuckDbTest {
  @TempDir Path cache;

  @ParameterizedTest(name = "SF {0}")
  @ValueSource(doubles = {0.01, 0.05})
  void everyImplementedQueryMatchesDuckDb(double scaleFactor, EngineMemory memory) throws Exception {
    assertEquals(IntStream.rangeClosed(1, 22).boxed().toList(), TpchQueries.implemented(), "all 22 queries registered");
    try (TpchDatabase db = TpchDatabase.load(cache, scaleFactor, new TpchDataGenerator(2, true), memory);
        DuckDbOracle oracle = DuckDbOracle.of(db, 1, memory)) {
      for (int number : TpchQueries.implemented()) {
        List<QueryParameters> parameterSets = List.of(TpchParameters.validation(number, scaleFactor),
            TpchParameters.random(number, scaleFactor, 1), TpchParameters.random(number, scaleFactor, 2));
        for (QueryParameters parameters : parameterSets) {
          var expected = ResultComparator.expectedFrom(number, oracle.runSql(DuckDbOracle.tpchSql(parameters)));
          for (int threads = 1; threads <= 2; threads++) {
            try (Table actual = TpchQueries.require(number).run(db, parameters, new ExecutionContext(memory, threads))) {
              var outcome = ResultComparator.compare(actual, expected);
              assertTrue(outcome.matches(), parameters + " at SF " + scaleFactor + " on " + threads
                  + " threads: " + outcome.message());
            }
          }
        }
      }
    }
  }
}
