package dev.memwall.tpch.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.run.TpchRunner.Options;
import dev.memwall.tpch.run.TpchRunner.QueryReport;
import dev.memwall.tpch.run.TpchRunner.Verification;
import dev.memwall.tpch.run.TpchRunner.WarmUp;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The order in which the runner runs two engines: each engine's first runs follow one another as in a
 * fresh process, and the compared engine's runs never come between the engine's warm-ups.
 */
class TpchRunnerOrderTest {
  private static final List<TpchQuery> QUERIES = List.of(TpchQueries.require(1), TpchQueries.require(6),
      TpchQueries.require(14));

  /**
   * An engine that records each run as "name Qn", and each wait for its process to settle as "name
   * idle", and reports as a run's time its place in the log.
   */
  private record Recording(String name, List<String> log) implements QueryEngine {
    @Override
    public Result run(TpchQuery query, QueryParameters parameters) {
      log.add(name + " Q" + query.number());
      return Result.of(List.of("x"), List.of(List.of(1)), log.size());
    }

    @Override
    public void awaitIdle() {
      log.add(name + " idle");
    }

    @Override
    public void close() {}
  }

  private static List<String> runAll(WarmUp scope, List<QueryReport> reports) throws Exception {
    List<String> log = new ArrayList<>();
    Options options = new Options(2, 1, 1, Verification.NONE, OptionalLong.empty(), scope, 1);
    TpchRunner runner = new TpchRunner(new Recording("a", log), 1, options, null, null, new Recording("b", log));
    reports.addAll(runner.runAll(QUERIES));
    return log;
  }

  @Test
  void aSuiteWarmUpRunsTheEnginesQueriesPassAfterPassBeforeAnyOfTheComparedEngines() throws Exception {
    List<QueryReport> reports = new ArrayList<>();
    List<String> log = runAll(WarmUp.SUITE, reports);
    // the engine runs once the compared engine's process has settled ("b idle")
    assertEquals(List.of("b idle", "a Q1", "a Q6", "a Q14", "a Q1", "a Q6", "a Q14", // the engine's two passes
        "b Q1", "b Q6", "b Q14", "b Q1", "b Q6", "b Q14", // then the compared engine's
        "b idle", "a Q1", "b Q1", "b idle", "a Q6", "b Q6", "b idle", "a Q14", "b Q14"), log); // timed, by query
    // each first run is the first pass's: Q6's is the engine's second run, right after Q1's first
    assertEquals(List.of(2L, 3L, 4L), reports.stream().map(QueryReport::firstNanos).toList());
    assertEquals(List.of(8L, 9L, 10L), reports.stream().map(QueryReport::comparedFirstNanos).toList());
  }

  @Test
  void aQueryWarmUpRunsEachQuerysWarmUpsRightBeforeItsTimedRuns() throws Exception {
    List<QueryReport> reports = new ArrayList<>();
    List<String> log = runAll(WarmUp.QUERY, reports);
    assertEquals(List.of("b idle", "a Q1", "a Q1", "b Q1", "b Q1", "b idle", "a Q1", "b Q1",
        "b idle", "a Q6", "a Q6", "b Q6", "b Q6", "b idle", "a Q6", "b Q6",
        "b idle", "a Q14", "a Q14", "b Q14", "b Q14", "b idle", "a Q14", "b Q14"), log);
    assertEquals(List.of(2L, 10L, 18L), reports.stream().map(QueryReport::firstNanos).toList());
  }
}
