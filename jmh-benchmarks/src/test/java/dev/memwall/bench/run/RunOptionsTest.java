package dev.memwall.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.hw.HardwareCounters;
import dev.memwall.hw.ProfilerEvents;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.AsyncProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.TimeValue;

/** memwall's defaults under the user's JMH options, result files, and the profiling plan. */
class RunOptionsTest {
  private static final LocalDateTime NOW = LocalDateTime.of(2026, 11, 22, 6, 50, 12);
  private static final HardwareCounters.Availability NO_COUNTERS = new HardwareCounters.Availability(false,
      "perf_event_open for CPU cycles failed with errno 2 (ENOENT: no hardware PMU is exposed, as in most VMs)");
  private static final HardwareCounters.Availability COUNTERS = new HardwareCounters.Availability(true, "ok");

  private static JmhRun.Plan plan(RunDefaults defaults, Optional<JmhRun.Profile> profile, String... args)
      throws Exception {
    return JmhRun.plan(new CommandLineOptions(args), defaults, profile, Path.of("bench-results"), NOW);
  }

  @Test
  void theDefaultsFillWhatTheUserLeavesOut() throws Exception {
    Options options = plan(RunDefaults.FULL, Optional.empty(), "ScanBandwidth", "-wi", "7", "-r", "2s").options();
    assertEquals(1, options.getForkCount().get());
    assertEquals(7, options.getWarmupIterations().get());
    assertEquals(TimeValue.seconds(1), options.getWarmupTime().get());
    assertEquals(5, options.getMeasurementIterations().get());
    assertEquals(TimeValue.seconds(2), options.getMeasurementTime().get());
    assertEquals(List.of("ScanBandwidth"), options.getIncludes());

    Options quick = plan(RunDefaults.QUICK, Optional.empty(), "-f", "2").options();
    assertEquals(2, quick.getForkCount().get());
    assertEquals(1, quick.getWarmupIterations().get());
    assertEquals(new TimeValue(200, TimeUnit.MILLISECONDS), quick.getMeasurementTime().get());
    assertEquals("-f 1 -wi 3 -w 1s -i 5 -r 1s", RunDefaults.FULL.describe());
    assertEquals("-f 1 -wi 1 -w 200ms -i 2 -r 200ms", RunDefaults.QUICK.describe());
    assertEquals(RunDefaults.QUICK_OPTIONS, RunDefaults.QUICK.describe());
  }

  @Test
  void resultsGoToATimestampedJsonFileUnlessTheUserChoosesOne() throws Exception {
    var plan = plan(RunDefaults.FULL, Optional.empty(), "Scan.*Bandwidth");
    assertEquals(Optional.of(Path.of("bench-results/Scan._Bandwidth-20261122-065012.json")), plan.resultFile());
    assertEquals(ResultFormatType.JSON, plan.options().getResultFormat().get());
    assertEquals("bench-results/Scan._Bandwidth-20261122-065012.json", plan.options().getResult().get());
    assertEquals(Optional.of(Path.of("bench-results/quick-all-20261122-065012.json")),
        plan(RunDefaults.QUICK, Optional.empty()).resultFile());

    var named = plan(RunDefaults.FULL, Optional.empty(), "-rff", "out/x.json");
    assertEquals(ResultFormatType.JSON, named.options().getResultFormat().get(), "the extension decides, not JMH's CSV");
    assertEquals(Optional.of(Path.of("out/x.json")), named.resultFile());
    var csv = plan(RunDefaults.FULL, Optional.empty(), "-rf", "csv");
    assertEquals(ResultFormatType.CSV, csv.options().getResultFormat().get());
    assertFalse(csv.options().getResult().hasValue(), "JMH's own default file name stays");
    assertEquals(Optional.empty(), csv.resultFile());
  }

  @Test
  void profilingAddsAsyncProfilerWithTheExtractedLibrary() throws Exception {
    var profile = new JmhRun.Profile(Path.of("/cache/libasyncProfiler-4.6-linux-x64.so"), "cpu",
        Path.of("/work/bench-results/profiles"));
    var options = plan(RunDefaults.QUICK, Optional.of(profile), "ScanBandwidth").options();
    assertEquals(1, options.getProfilers().size());
    assertEquals(AsyncProfiler.class.getCanonicalName(), options.getProfilers().getFirst().getKlass());
    assertEquals("libPath=/cache/libasyncProfiler-4.6-linux-x64.so;event=cpu;output=flamegraph;"
        + "dir=/work/bench-results/profiles", options.getProfilers().getFirst().getOpts());
  }

  @Test
  void hardwareEventsFallBackToCpuTimeWithOneLineWhereThereAreNoCounters() {
    var plan = ProfilerEvents.plan("cache-misses", NO_COUNTERS);
    assertEquals("cpu", plan.event());
    String notice = plan.notice().orElseThrow();
    assertFalse(notice.contains("\n"));
    assertTrue(notice.startsWith("--profile cache-misses needs hardware counters, which this machine lacks "
        + "(perf_event_open for CPU cycles failed with errno 2 (ENOENT"), notice);
    assertTrue(notice.endsWith("sampling CPU time instead (event=cpu): the flame graphs show where time goes, not cache-misses"),
        notice);
    assertEquals("cpu", ProfilerEvents.plan("r01c4", NO_COUNTERS).event());
    assertEquals("dTLB-load-misses", ProfilerEvents.plan("dTLB-load-misses", COUNTERS).event());
    assertEquals(Optional.empty(), ProfilerEvents.plan("dTLB-load-misses", COUNTERS).notice());
  }

  @Test
  void samplingEventsNeedNoCounters() {
    for (String event : List.of("cpu", "wall", "itimer", "ctimer", "alloc", "lock", "cpu-clock", "page-faults")) {
      var plan = ProfilerEvents.plan(event, NO_COUNTERS);
      assertEquals(event, plan.event());
      assertEquals(Optional.empty(), plan.notice());
    }
  }

  @Test
  void unknownEventsGetOneLineListingTheValidOnes() {
    for (String bad : List.of("cache-miss", "CPU", "", "r", "rxyz", "cpu,alloc")) {
      var e = assertThrows(IllegalArgumentException.class, () -> ProfilerEvents.plan(bad, COUNTERS));
      assertTrue(e.getMessage().startsWith("unknown profiling event '" + bad + "'; valid events: cpu, wall, "),
          e.getMessage());
      assertTrue(e.getMessage().contains("cache-misses"), e.getMessage());
      assertFalse(e.getMessage().contains("\n"));
    }
  }
}
