package dev.memwall.bench.report;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of JMH's JSON results ({@code -rf json}): one benchmark method at one parameter
 * combination, with its primary score. Secondary metrics (profiler output, {@code -prof gc}) are
 * not kept.
 *
 * @param benchmark the fully qualified method, {@code dev.memwall.bench.ScanBandwidthBenchmark.sumSegment}
 * @param mode JMH's short mode name: {@code thrpt}, {@code avgt}, {@code sample} or {@code ss}
 * @param params the {@code @Param} values in JMH's order (empty when the benchmark has none); unmodifiable
 * @param score the primary score in {@code scoreUnit}
 * @param scoreError half the 99.9% confidence interval, NaN when JMH had too few iterations for one
 * @param scoreUnit JMH's unit, such as {@code ms/op} or {@code ops/s}
 * @param run how the score was measured (JMH, JVM, forks, iterations)
 */
public record JmhResult(String benchmark, String mode, Map<String, String> params, double score, double scoreError,
    String scoreUnit, RunSettings run) {

  /** How JMH ran a benchmark, as it records it next to the score; fields JMH left out are empty or 0. */
  public record RunSettings(String jmhVersion, String vmName, String vmVersion, int forks, int threads,
      int warmupIterations, String warmupTime, int measurementIterations, String measurementTime) {}

  public JmhResult {
    Objects.requireNonNull(benchmark, "benchmark");
    if (benchmark.lastIndexOf('.') <= 0 || benchmark.endsWith(".")) {
      throw new IllegalArgumentException("benchmark must be Class.method, got '" + benchmark + "'");
    }
    params.forEach((name, value) -> Objects.requireNonNull(value, () -> "param " + name));
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(scoreUnit, "scoreUnit");
    Objects.requireNonNull(run, "run");
  }

  /** The benchmark class's fully qualified name. */
  public String className() {
    return benchmark.substring(0, benchmark.lastIndexOf('.'));
  }

  /** The class name without its package. */
  public String simpleClassName() {
    String className = className();
    return className.substring(className.lastIndexOf('.') + 1);
  }

  /** The benchmark method's name. */
  public String method() {
    return benchmark.substring(benchmark.lastIndexOf('.') + 1);
  }
}
