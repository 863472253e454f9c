package dev.memwall.bench.join;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.planner.JoinPlan;
import dev.memwall.join.planner.Planner;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What planning one join costs, as {@code Join} plans it for every run: a {@link Planner} made from
 * the machine profile, then a plan for {@code tuples} per side. {@code AUTO} with a build side
 * whose table fits the last-level cache prices only the non-partitioned joins; a named clustering
 * algorithm ({@code PHASH_PLUS}) prices every algorithm's radix plans, as AUTO did before for every
 * size, so the two in one run compare the planning work with and without the radix plans.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@State(Scope.Benchmark)
public class PlannerBenchmark {
  @Param({"15625", "8000000"})
  public long tuples;

  @Param({"AUTO", "PHASH_PLUS"})
  public JoinAlgorithm algorithm;

  private MachineProfile profile;

  @Setup(Level.Trial)
  public void setUp() {
    profile = JoinSettings.profile();
  }

  @Benchmark
  public JoinPlan plan() {
    return new Planner(profile).plan(algorithm, tuples, tuples, null, false);
  }
}
