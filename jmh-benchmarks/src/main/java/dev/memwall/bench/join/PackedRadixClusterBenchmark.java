package dev.memwall.bench.join;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.PackedRadixCluster;
import dev.memwall.core.partition.PackedSource;
import dev.memwall.core.partition.PackedTuples;
import dev.memwall.core.partition.RadixCluster;
import dev.memwall.core.partition.RadixPlan;
import java.lang.foreign.MemorySegment;
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
 * Seed 000's Figs. 11-13 on the seed's own 8-byte tuples: radix-clustering C (key, row id) tuples
 * (8M by default, uniform random int32 keys) on B bits in P passes with {@link PackedRadixCluster}.
 * One operation reads the input through a {@link PackedSource} (twice in the first pass, as the
 * joins read a key column) and clusters it; compare with {@link RadixClusterBenchmark}'s 12-byte
 * (hash, row id) tuples, whose operation copies its input once first.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@State(Scope.Benchmark)
public class PackedRadixClusterBenchmark {
  @Param({"8388608"})
  public int tuples;

  @Param({"4", "8", "11", "12", "14", "16", "20"})
  public int bits;

  @Param({"1", "2", "3"})
  public int passes;

  private EngineMemory memory;
  private OffHeapBuffer original;
  private OffHeapBuffer out;
  private OffHeapBuffer scratch;
  private OffHeapBuffer offsets;
  private PackedSource source;
  private RadixPlan plan;

  @Setup(Level.Trial)
  public void setUp() {
    plan = RadixPlan.even(bits, Math.min(passes, bits));
    memory = EngineMemory.create("packed-radix-cluster");
    long bytes = tuples * PackedTuples.BYTES_PER_TUPLE;
    original = memory.allocate(bytes, Placement.HUGE_PAGES);
    out = memory.allocate(bytes, Placement.HUGE_PAGES);
    scratch = memory.allocate(bytes, Placement.HUGE_PAGES);
    offsets = memory.allocate(RadixCluster.offsetsBytes(plan));
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < tuples; i++) {
      original.segment().setAtIndex(PackedTuples.WORD, i, PackedTuples.pack(random.nextInt(), i));
    }
    source = PackedSource.of(original.segment(), tuples);
  }

  @Benchmark
  public long cluster() {
    MemorySegment clustered = PackedRadixCluster.cluster(source, out.segment(), scratch.segment(), plan, 1,
        offsets.segment());
    return clustered.getAtIndex(PackedTuples.WORD, tuples / 2);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    original.close();
    out.close();
    scratch.close();
    offsets.close();
    memory.close();
  }
}
