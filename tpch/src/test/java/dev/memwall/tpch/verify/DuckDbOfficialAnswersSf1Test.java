package dev.memwall.tpch.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.LoopQ6;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.run.DuckDbEngine;
import dev.memwall.tpch.run.MemwallEngine;
import dev.memwall.tpch.run.TpchRunner;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SF 1 check of the whole verification chain: memwall's generated data, loaded into DuckDB, with
 * the 22 query texts, must reproduce the official answers under the TPC-H comparison rules.
 * Expensive (generates SF 1 into the cache directory once, about a minute on 2 cores, and loads it
 * into DuckDB), so only with {@code -Dmemwall.tpch.sf1=true}, e.g.
 * {@code ./mvnw -B -q -pl tpch -am test -Dtest=DuckDbOfficialAnswersSf1Test -Dsurefire.failIfNoSpecifiedTests=false -Dmemwall.tpch.sf1=true}.
 */
@ExtendWith(LeakCheck.class)
@EnabledIfSystemProperty(named = "memwall.tpch.sf1", matches = "true")
class DuckDbOfficialAnswersSf1Test {
  @Test
  void duckDbOnMemwallDataReproducesTheOfficialAnswers(EngineMemory memory) throws Exception {
    OfficialAnswers answers = new OfficialAnswers(OfficialAnswers.locate().orElseThrow());
    try (TpchDatabase db = TpchDatabase.load(TpchDataGenerator.defaultCacheDirectory(), 1,
            new TpchDataGenerator(Runtime.getRuntime().availableProcessors(), false), memory);
        DuckDbOracle oracle = DuckDbOracle.of(db, Runtime.getRuntime().availableProcessors(), memory)) {
      assertEquals(6_001_215L, db.table("lineitem").rowCount());
      List<String> failures = new ArrayList<>();
      for (int query = 1; query <= 22; query++) {
        QueryResult result = oracle.runSql(DuckDbOracle.tpchSql(TpchParameters.validation(query, 1)));
        var outcome = ResultComparator.compare(result.rows(), answers.expected(query));
        System.out.printf("Q%d: %d rows, %.1f ms, %s%n", query, result.rows().size(), result.nanos() / 1e6,
            outcome.message());
        if (!outcome.matches()) {
          failures.add(outcome.message());
        }
      }
      assertTrue(failures.isEmpty(), String.join("\n", failures));

      // The memwall side of the chain: a plain-loop Q6 over the mapped data, through the runner,
      // against the official answer, with DuckDB timed alongside.
      int threads = Runtime.getRuntime().availableProcessors();
      var options = new TpchRunner.Options(1, 3, threads, TpchRunner.Verification.ANSWERS);
      var engine = new MemwallEngine(db, memory, threads);
      var duckdb = new DuckDbEngine(oracle);
      var report = new TpchRunner(engine, 1, options, answers, duckdb, duckdb).run(new LoopQ6());
      System.out.println(report);
      assertEquals(Boolean.TRUE, report.verified(), report.reason());
      assertTrue(report.comparedMedianNanos() > 0, report.toString());
      var wrong = new TpchRunner(engine, 1, options, answers, duckdb, duckdb).run(new LoopQ6(6, 10_001));
      assertEquals(Boolean.FALSE, wrong.verified(), wrong.reason());
    }
  }
}
