package dev.memwall.bench.join;

import dev.memwall.core.hash.Hashing;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.RadixCluster;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.core.partition.HashedTuples;
import java.lang.foreign.MemorySegment;
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
 * Seed 000's Figs. 11-13: radix-clustering C tuples (8M by default) on B bits in P passes, with
 * and without software write-combining buffers. One operation clusters a fresh copy of the input
 * (the copy, a sequential 12 bytes a tuple, is included and equal for every setting).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@State(Scope.Benchmark)
public class RadixClusterBenchmark {
  @Param({"8388608"})
  public int tuples;

  @Param({"4", "8", "11", "12", "14", "16", "20"})
  public int bits;

  @Param({"1", "2", "3"})
  public int passes;

  @Param({"true", "false"})
  public boolean writeCombining;

  private EngineMemory memory;
  private HashedTuples original;
  private HashedTuples input;
  private HashedTuples scratch;
  private OffHeapBuffer offsets;
  private OffHeapBuffer level;
  private RadixPlan plan;

  @Setup(Level.Trial)
  public void setUp() {
    plan = RadixPlan.even(bits, Math.min(passes, bits));
    memory = EngineMemory.create("radix-cluster");
    original = HashedTuples.allocate(memory, tuples, Placement.HUGE_PAGES);
    input = HashedTuples.allocate(memory, tuples, Placement.HUGE_PAGES);
    scratch = HashedTuples.allocate(memory, tuples, Placement.HUGE_PAGES);
    offsets = memory.allocate(RadixCluster.offsetsBytes(plan));
    level = memory.allocate(RadixCluster.offsetsBytes(plan));
    for (int i = 0; i < tuples; i++) {
      original.set(i, Hashing.mix64(i), i);
    }
  }

  @Benchmark
  public long cluster() {
    MemorySegment.copy(original.hashes(), 0, input.hashes(), 0, original.hashes().byteSize());
    MemorySegment.copy(original.rows(), 0, input.rows(), 0, original.rows().byteSize());
    HashedTuples out = RadixCluster.cluster(input, scratch, tuples, plan, writeCombining, offsets.segment(), level.segment());
    return out.hash(tuples / 2);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    original.close();
    input.close();
    scratch.close();
    offsets.close();
    level.close();
    memory.close();
  }
}
