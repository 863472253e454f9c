package dev.memwall.bench.join;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.join.Join;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Workload A of the multi-core hash join literature (Balkesen et al.): a build side of 16M unique
 * keys, a probe side of uniform foreign keys (or Zipf-skewed), count-only, on {@code threads}
 * threads (default one). The probe side is scaled from 256M to 64M tuples to fit this 24 GiB
 * machine; with {@code build} = 64M it is workload B (128M x 128M) scaled by half. Throughput is
 * reported per probe tuple: JMH's ops/s here are probe tuples per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g"})
@State(Scope.Benchmark)
public class WorkloadABenchmark extends JoinFixture {
  static final int PROBE = 64 << 20;

  @Param({"16777216"})
  public int build;

  @Param({"0"})
  public double zipf;

  @Param({"1"})
  public int threads;

  @Param({"OPEN_ADDRESSING", "OPEN_ADDRESSING_PLAIN", "SIMPLE_HASH", "PHASH_PLUS_TLB", "PLANNER"})
  public JoinSettings setting;

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("workload-a");
    MachineProfile profile = JoinSettings.profile();
    right = JoinBenchData.uniqueShuffled(memory, build, 1);
    left = JoinBenchData.foreignKeys(memory, PROBE, build, zipf, 2);
    join = setting.apply(Join.of(memory, left, right).on("k").profile(profile).threads(threads), profile, build);
    System.out.println();
    System.out.println(join.plan().describe());
  }

  @Benchmark
  @OperationsPerInvocation(PROBE)
  public long countOnly() {
    return join.count();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    closeInputs();
  }
}
