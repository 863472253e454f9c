package dev.memwall.bench.grace;

import dev.memwall.bench.join.JoinBenchData;
import dev.memwall.bench.join.JoinFixture;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.join.Join;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.prefetch.BucketTable;
import dev.memwall.join.prefetch.PrefetchingHashJoin;
import java.util.SplittableRandom;
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
 * Spilled versus in-memory joins under shrinking budgets: a GRACE or hybrid hash join of
 * {@code tuples} unique build keys with as many foreign keys, count-only, with the memory limit
 * {@code 1/divisor} of the build side's in-memory size (divisor 1: twice that, so that nothing spills). Time per whole join;
 * spill files go to {@code java.io.tmpdir} (the page cache, as on any machine with free memory).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@State(Scope.Benchmark)
public class SpillBenchmark extends JoinFixture {
  @Param({"4194304"})
  public int tuples;

  @Param({"1", "2", "8", "64"})
  public int divisor;

  @Param({"GRACE", "HYBRID_HASH"})
  public JoinAlgorithm algorithm;

  @Param({"GROUP"})
  public PrefetchingHashJoin.Mode loops;

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("spill");
    SplittableRandom random = new SplittableRandom(1);
    int[] build = new int[tuples];
    for (int i = 0; i < tuples; i++) {
      build[i] = i;
    }
    for (int i = tuples - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = build[i];
      build[i] = build[j];
      build[j] = t;
    }
    int[] probe = new int[tuples];
    for (int i = 0; i < tuples; i++) {
      probe[i] = random.nextInt(tuples);
    }
    right = JoinBenchData.keysOnly(memory, build);
    left = JoinBenchData.keysOnly(memory, probe);
    // divisor 1: room for k = ceil(1.2 |R| / M) = 1, so neither algorithm spills
    long limit = divisor == 1 ? 2L * tuples * BucketTable.BYTES_PER_TUPLE : (long) tuples * BucketTable.BYTES_PER_TUPLE / divisor;
    join = Join.of(memory, left, right).on("k").algorithm(algorithm).memoryLimit(limit).prefetch(loops);
  }

  @Benchmark
  public long join() {
    return join.count();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    System.out.println();
    System.out.println("spill report: " + join.analyze().spill().orElse(null)); // one more run, outside the measurement
    closeInputs();
  }
}
