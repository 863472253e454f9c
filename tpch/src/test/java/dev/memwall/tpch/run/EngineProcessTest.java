package dev.memwall.tpch.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import java.io.File;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine in its own process: DuckDB there answers as DuckDB in this one does, times itself, survives
 * a query it rejects, ends when closed, and a child that cannot load or dies is a named error; an
 * engine of a provider the child cannot find is one too.
 */
@ExtendWith(LeakCheck.class)
class EngineProcessTest {
  private static final double SF = 0.01;

  @TempDir Path cache;

  @Test
  void theChildTakesNeitherAgentsNorTheAotCacheAndLogsOnStderr() {
    List<String> options = EngineProcess.childOptions(List.of("-Xmx4g", "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "-agentpath:/x/libasyncProfiler.so=start", "-XX:AOTCache=/c/tpch.aot", "-XX:AOTMode=record",
        "-XX:AOTConfiguration=/c/tpch.aot.config", "-Xlog:aot=error,cds=error", "-XX:CICompilerCount=3"));
    assertEquals(List.of("-Xmx4g", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-XX:CICompilerCount=3",
        "-Xlog:disable", "-Xlog:all=warning:stderr"), options);
  }

  @Test
  void theChildsEnvironmentGivesItNoOptionsOfItsOwn() {
    Map<String, String> environment = new HashMap<>(Map.of("PATH", "/bin", "JDK_JAVA_OPTIONS", "-agentpath:/x.so",
        "JAVA_TOOL_OPTIONS", "-Dx=1", "_JAVA_OPTIONS", "-Xmx1g", "JAVA_HOME", "/jdk"));
    EngineProcess.dropOptionVariables(environment);
    assertEquals(Map.of("PATH", "/bin", "JAVA_HOME", "/jdk"), environment);
  }

  @Test
  void answersAsDuckDbInThisProcessAndEndsWhenClosed(EngineMemory memory) throws Exception {
    EngineProcess child;
    try (TpchDatabase db = TpchDatabase.load(cache, SF, new TpchDataGenerator(2, true), memory);
        DuckDbOracle oracle = DuckDbOracle.of(db, 2, memory);
        DuckDbEngine here = new DuckDbEngine(oracle);
        EngineProcess there = EngineProcess.duckDb(cache, SF, 2)) {
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
      there.awaitIdle(); // the child answers a wait for its compilers, and goes on serving queries after it
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
    EngineProcessException missing = assertThrows(EngineProcessException.class,
        () -> EngineProcess.duckDb(cache.resolve("nothing here"), SF, 1));
    assertTrue(missing.getMessage().contains("cannot load the data set into DuckDB"), missing.getMessage());
    assertTrue(missing.getMessage().contains("exited with status"), missing.getMessage());

    try (EngineMemory memory = EngineMemory.create("generate")) {
      new TpchDataGenerator(2, true).ensure(TpchDataGenerator.dataDirectory(cache, SF), SF, memory);
    }
    try (EngineProcess there = EngineProcess.duckDb(cache, SF, 1)) {
      there.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      EngineProcessException lost = assertThrows(EngineProcessException.class,
          () -> there.run(TpchQueries.require(6), TpchParameters.validation(6, SF)));
      assertTrue(lost.getMessage().contains("DuckDB process"), lost.getMessage());
      assertTrue(lost.getMessage().contains("exited with status 137"), lost.getMessage());
    }
  }

  @Test
  void aProvidersEngineRunsInTheChildWithItsArgumentsAndSurvivesAFailedQuery() throws Exception {
    EngineProcess child;
    try (EngineProcess echo = EngineProcess.provider("echo", cache, 3, true, Map.of("x", "a b=c"))) {
      child = echo;
      assertEquals("echo (own process)", echo.name());
      QueryParameters parameters = TpchParameters.validation(6, SF);
      try (QueryEngine.Result result = echo.run(TpchQueries.require(6), parameters)) {
        assertEquals(List.of("query", "parameter", "data", "threads", "accelerated", "x"), result.columns());
        assertEquals(List.of(List.of(6, parameters.values().values().iterator().next(), cache.toAbsolutePath().toString(),
            3, true, "a b=c")), result.values(), "the parameters and the settings reached the child whole");
        assertTrue(result.engineNanos() > 0, "the child times the query itself");
      }
      SQLException failed = assertThrows(SQLException.class,
          () -> echo.run(TpchQueries.require(13), TpchParameters.validation(13, SF)));
      assertEquals("echo: java.lang.IllegalStateException: echo does not run Q13", failed.getMessage());
      try (QueryEngine.Result after = echo.run(TpchQueries.require(1), TpchParameters.validation(1, SF))) {
        assertEquals(1, after.values().getFirst().getFirst(), "the child goes on after a failed query");
      }
    }
    assertFalse(child.process().isAlive(), "closed: the child has ended");

    EngineProcessException missing = assertThrows(EngineProcessException.class,
        () -> EngineProcess.provider("nosuch", cache, 1, false, Map.of()));
    assertTrue(missing.getMessage().startsWith("cannot open the nosuch engine: ") && missing.getMessage().contains(
        "no engine 'nosuch'") && missing.getMessage().contains("the nosuch process exited with status"), missing.getMessage());
  }

  @Test
  void aChildRunsOnTheClassPathItIsGiven() throws Exception {
    String full = System.getProperty("java.class.path");
    try (EngineProcess echo = EngineProcess.provider("echo", cache, 1, false, Map.of(), full)) {
      assertEquals("echo (own process)", echo.name());
    }
    // the echo engine is registered by this module's test classes: without them the child cannot find it
    String withoutTests = Arrays.stream(full.split(File.pathSeparator))
        .filter(entry -> !entry.endsWith("test-classes")).collect(Collectors.joining(File.pathSeparator));
    assertNotEquals(full, withoutTests);
    EngineProcessException missing = assertThrows(EngineProcessException.class,
        () -> EngineProcess.provider("echo", cache, 1, false, Map.of(), withoutTests));
    assertTrue(missing.getMessage().contains("no engine 'echo'"), missing.getMessage());
  }
}
