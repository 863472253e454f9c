package dev.memwall.tpch.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * DuckDB in its own process answers as DuckDB in this one does, times itself, survives a query it
 * rejects, ends when closed, and a child that cannot load or dies is a named error.
 */
@ExtendWith(LeakCheck.class)
class DuckDbProcessTest {
  private static final double SF = 0.01;

  @TempDir Path cache;

  @Test
  void theChildTakesNeitherAgentsNorTheAotCacheAndLogsOnStderr() {
    List<String> options = DuckDbProcess.childOptions(List.of("-Xmx4g", "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "-agentpath:/x/libasyncProfiler.so=start", "-XX:AOTCache=/c/tpch.aot", "-XX:AOTMode=record",
        "-XX:AOTConfiguration=/c/tpch.aot.config", "-Xlog:aot=error,cds=error", "-XX:CICompilerCount=3"));
    assertEquals(List.of("-Xmx4g", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-XX:CICompilerCount=3",
        "-Xlog:disable", "-Xlog:all=warning:stderr"), options);
  }

  @Test
  void answersAsDuckDbInThisProcessAndEndsWhenClosed(EngineMemory memory) throws Exception {
    DuckDbProcess child;
    try (TpchDatabase db = TpchDatabase.load(cache, SF, new TpchDataGenerator(2, true), memory);
        DuckDbOracle oracle = DuckDbOracle.of(db, 2, memory);
        DuckDbEngine here = new DuckDbEngine(oracle);
        DuckDbProcess there = DuckDbProcess.start(cache, SF, 2)) {
      child = there;
      assertTrue(there.name().startsWith("DuckDB v") && there.name().endsWith("(own process)"), there.name());
      for (int number : List.of(1, 13, 18, 22)) {
        QueryParameters parameters = TpchParameters.validation(number, SF);
        try (QueryEngine.Result expected = here.run(TpchQueries.require(number), parameters);
            QueryEngine.Result actual = there.run(TpchQueries.require(number), parameters)) {
          assertEquals(expected.columns(), actual.columns(), "Q" + number);
          assertEquals(expected.values(), actual.values(), "Q" + number);
          assertTrue(actual.engineNanos() > 0, "the child times the query itself");
          assertEquals(-1, expected.engineNanos(), "an engine in this process leaves the timing to the caller");
        }
      }
      SQLException rejected = assertThrows(SQLException.class, () -> there.runSql("SELECT nothing FROM nowhere", "bad SQL"));
      assertTrue(rejected.getMessage().startsWith("DuckDB: "), rejected.getMessage());
      try (QueryEngine.Result after = there.run(TpchQueries.require(6), TpchParameters.validation(6, SF))) {
        assertEquals(1, after.rowCount(), "the child goes on after a rejected query");
      }
    }
    assertFalse(child.process().isAlive(), "closed: the child has ended");
  }

  @Test
  void aChildThatDiesOrCannotLoadIsANamedError() throws Exception {
    DuckDbProcessException missing = assertThrows(DuckDbProcessException.class,
        () -> DuckDbProcess.start(cache.resolve("nothing here"), SF, 1));
    assertTrue(missing.getMessage().contains("cannot load the data set into DuckDB"), missing.getMessage());
    assertTrue(missing.getMessage().contains("exited with status"), missing.getMessage());

    try (EngineMemory memory = EngineMemory.create("generate")) {
      new TpchDataGenerator(2, true).ensure(TpchDataGenerator.dataDirectory(cache, SF), SF, memory);
    }
    try (DuckDbProcess there = DuckDbProcess.start(cache, SF, 1)) {
      there.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      DuckDbProcessException lost = assertThrows(DuckDbProcessException.class,
          () -> there.run(TpchQueries.require(6), TpchParameters.validation(6, SF)));
      assertTrue(lost.getMessage().contains("DuckDB process"), lost.getMessage());
      assertTrue(lost.getMessage().contains("exited with status 137"), lost.getMessage());
    }
  }
}
