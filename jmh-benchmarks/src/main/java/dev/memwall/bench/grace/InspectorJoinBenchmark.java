package dev.memwall.bench.grace;

import dev.memwall.bench.join.JoinBenchData;
import dev.memwall.bench.join.JoinFixture;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.join.Join;
import dev.memwall.join.JoinReport;
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
 * Seed 002, chapter 5 in shape: the inspector join against enhanced cache partitioning and the
 * group-prefetching hash join (GRACE with every partition in memory, group loops), whole joins,
 * count-only. {@code tuples} build tuples, each key repeated {@code duplicates} times, and as many
 * probe tuples, each matching one key (so {@code duplicates} result rows per probe tuple). Keys in
 * random order, or nearly sorted (sorted, then 1% of the tuples moved to random places). Tuples of
 * {@code tupleBytes} moved through the partitions of the inspector and cache-partitioning joins (the
 * prefetching join keeps 16-byte tuples whatever this says, and runs on one thread whatever
 * {@code threads} says). Time per whole join.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@State(Scope.Benchmark)
public class InspectorJoinBenchmark extends JoinFixture {
  /** Key order of both inputs. */
  public enum Order { RANDOM, NEARLY_SORTED }

  @Param({"1048576"})
  public int tuples;

  @Param({"1", "4", "8"})
  public int duplicates;

  @Param({"RANDOM", "NEARLY_SORTED"})
  public Order order;

  @Param({"100"})
  public int tupleBytes;

  @Param({"1", "2"})
  public int threads;

  @Param({"INSPECTOR", "ENHANCED_CACHE_PARTITIONING", "GRACE"})
  public JoinAlgorithm algorithm;

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("inspector-bench");
    SplittableRandom random = new SplittableRandom(1);
    int distinct = Math.max(1, tuples / duplicates);
    int[] build = new int[tuples];
    for (int i = 0; i < tuples; i++) {
      build[i] = i / duplicates % distinct;
    }
    int[] probe = new int[tuples];
    for (int i = 0; i < tuples; i++) {
      probe[i] = (int) ((long) i * distinct / tuples);
    }
    arrange(build, random);
    arrange(probe, random);
    right = JoinBenchData.keysOnly(memory, build);
    left = JoinBenchData.keysOnly(memory, probe);
    join = Join.of(memory, left, right).on("k").algorithm(algorithm).threads(threads).tupleBytes(tupleBytes)
        .memoryLimit(2L * tuples * BucketTable.BYTES_PER_TUPLE).prefetch(PrefetchingHashJoin.Mode.GROUP);
  }

  /** Shuffles, or (nearly sorted) leaves sorted and moves 1% of the tuples to random places. */
  private void arrange(int[] keys, SplittableRandom random) {
    if (order == Order.RANDOM) {
      for (int i = keys.length - 1; i > 0; i--) {
        swap(keys, i, random.nextInt(i + 1));
      }
    } else {
      for (int moved = 0; moved < keys.length / 100; moved++) {
        swap(keys, random.nextInt(keys.length), random.nextInt(keys.length));
      }
    }
  }

  private static void swap(int[] a, int i, int j) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }

  @Benchmark
  public long join() {
    return join.count();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    System.out.println();
    JoinReport report = join.analyze(); // one more run, outside the measurement
    System.out.println("inspector report: " + report.inspector().orElse(null) + "; spill report: "
        + report.spill().orElse(null));
    closeInputs();
  }
}
