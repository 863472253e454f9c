package dev.memwall.bench.join;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import dev.memwall.join.Join;
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
import org.openjdk.jmh.annotations.TearDown;

/**
 * Every join algorithm, whole joins, at the sizes of seed 000's Table 2, on this machine: C tuples per side (int32 key, int32 payload), unique uniform
 * keys, hit rate 1, the join index produced (streamed in chunks whose row ids are summed, so the
 * pairs are really written but the index is never held whole). One operation is one whole join,
 * key extraction included. Settings: see {@link JoinSettings}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@State(Scope.Benchmark)
public class JoinAlgorithmsBenchmark extends JoinFixture {
  @Param({"15625", "125000", "1000000", "8000000"})
  public int tuples;

  @Param({"SIMPLE_HASH", "SORT_MERGE", "PHASH_TLB", "RADIX_8", "PHASH_PLUS_TLB", "OPEN_ADDRESSING", "PLANNER"})
  public JoinSettings setting;

  /** Whether radix clustering scatters through software write-combining buffers (Join's default: false). */
  @Param({"false"})
  public boolean writeCombining;

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("table2");
    MachineProfile profile = JoinSettings.profile();
    right = JoinBenchData.uniqueShuffled(memory, tuples, 1);
    left = JoinBenchData.uniqueShuffled(memory, tuples, 2);
    join = setting.apply(Join.of(memory, left, right).on("k").profile(profile).writeCombining(writeCombining), profile,
        tuples);
    System.out.println();
    System.out.println(join.plan().describe());
  }

  @Benchmark
  public long joinIndex() {
    long[] sum = new long[1];
    join.stream(chunk -> {
      long s = 0;
      for (int i = 0; i < chunk.size(); i++) {
        s += chunk.left(i) + chunk.right(i);
      }
      sum[0] += s;
    });
    return sum[0];
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    closeInputs();
  }
}
