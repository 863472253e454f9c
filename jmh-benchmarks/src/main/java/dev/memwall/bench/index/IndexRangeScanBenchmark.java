package dev.memwall.bench.index;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.KeyType;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.pbtree.JumpPointers;
import dev.memwall.index.pbtree.NodeWidthModel;
import dev.memwall.index.pbtree.PbTreeConfig;
import dev.memwall.index.pbtree.PrefetchingBPlusTree;
import dev.memwall.index.pbtree.ScanPrefetch;
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
 * Range scans (seed 002 Figure 2.17 in shape): one operation searches a random start key and
 * reads {@code rangeEntries} row ids in batches of 1024, returning their sum.
 *
 * <p>Variants over the same data: {@code ONE_LINE} (classic B+-tree), {@code ONE_LINE_EXTERNAL} and
 * {@code ONE_LINE_INTERNAL} (one-line nodes with a jump-pointer array, d = ceil(B)), {@code PB_NONE} (pB+-tree of
 * the model's width, no jump pointers), {@code PB_EXTERNAL} and {@code PB_INTERNAL} (the same with
 * an external or internal jump-pointer array, scans always prefetching with the profile's d and
 * c). {@code shape}: {@code BULKLOADED} (100% full, leaves contiguous in memory: the hardware
 * stream prefetcher already helps the plain scan) or {@code MATURE} (10% bulkloaded, then the
 * other 90% inserted in random order: leaves scattered, as in the seed's mature-tree experiments).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@State(Scope.Benchmark)
public class IndexRangeScanBenchmark {
  public enum Variant { ONE_LINE, ONE_LINE_EXTERNAL, ONE_LINE_INTERNAL, PB_NONE, PB_EXTERNAL, PB_INTERNAL }

  public enum Shape { BULKLOADED, MATURE }

  @Param("10000000")
  public long keys;

  @Param({"10", "100", "1000", "10000", "100000"})
  public int rangeEntries;

  @Param({"ONE_LINE", "PB_NONE", "PB_EXTERNAL", "PB_INTERNAL"})
  public Variant variant;

  @Param({"MATURE", "BULKLOADED"})
  public Shape shape;

  /** Prefetch distance override (0: the profile's d = ceil(B / w)). */
  @Param("0")
  public int distance;

  /** Chunk size override in lines (0: the profile's c = ceil(B / m)). */
  @Param("0")
  public int chunkLines;

  private EngineMemory memory;
  private PrefetchingBPlusTree tree;
  private long[] starts;
  private int next;
  private final long[] batch = new long[1024];
  private ScanPrefetch prefetch;

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("index-range-scan");
    PbTreeConfig config = switch (variant) {
      case ONE_LINE -> PbTreeConfig.oneLine(KeyType.INT64);
      case ONE_LINE_EXTERNAL, ONE_LINE_INTERNAL -> PbTreeConfig.oneLine(KeyType.INT64)
          .withJumpPointers(variant == Variant.ONE_LINE_EXTERNAL ? JumpPointers.EXTERNAL : JumpPointers.INTERNAL)
          .withPrefetchDistance(NodeWidthModel.prefetchDistance(IndexBenchData.profile(), 1))
          .withChunkLines(NodeWidthModel.chunkLines(IndexBenchData.profile()));
      case PB_NONE -> PbTreeConfig.fromProfile(IndexBenchData.profile(), KeyType.INT64, keys)
          .withJumpPointers(JumpPointers.NONE);
      case PB_EXTERNAL -> PbTreeConfig.fromProfile(IndexBenchData.profile(), KeyType.INT64, keys)
          .withJumpPointers(JumpPointers.EXTERNAL);
      case PB_INTERNAL -> PbTreeConfig.fromProfile(IndexBenchData.profile(), KeyType.INT64, keys)
          .withJumpPointers(JumpPointers.INTERNAL);
    };
    if (distance > 0) {
      config = config.withPrefetchDistance(distance);
    }
    if (chunkLines > 0) {
      config = config.withChunkLines(chunkLines);
    }
    prefetch = config.jumpPointers() == JumpPointers.NONE ? ScanPrefetch.NEVER : ScanPrefetch.ALWAYS;
    tree = build(memory, config, keys, shape);
    System.out.println("# " + tree + ", d=" + config.prefetchDistance() + ", c=" + config.chunkLines());
    SplittableRandom random = new SplittableRandom(7);
    starts = new long[1 << 16];
    for (int i = 0; i < starts.length; i++) {
      starts[i] = 2 * random.nextLong(keys - rangeEntries);
    }
  }

  /** A tree over keys 0, 2, 4, ... bulkloaded whole, or mature: 10% bulkloaded, 90% inserted at random. */
  static PrefetchingBPlusTree build(EngineMemory memory, PbTreeConfig config, long keys, Shape shape) {
    if (shape == Shape.BULKLOADED) {
      return PrefetchingBPlusTree.bulkload(memory, config, IndexBenchData.evenKeys(keys), 1.0);
    }
    int n = Math.toIntExact(keys);
    int[] order = IndexBenchData.permutation(n, 11);
    int loaded = n / 10;
    long[] first = new long[loaded];
    for (int i = 0; i < loaded; i++) {
      first[i] = order[i];
    }
    java.util.Arrays.sort(first);
    long[] k = new long[loaded];
    for (int i = 0; i < loaded; i++) {
      k[i] = 2 * first[i];
    }
    PrefetchingBPlusTree tree = PrefetchingBPlusTree.bulkload(memory, config, SortedEntries.of(k, first), 1.0);
    for (int i = loaded; i < n; i++) {
      tree.insert(2L * order[i], order[i]);
    }
    return tree;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    tree.close();
    memory.close();
  }

  @Benchmark
  public long scan() {
    long lo = starts[next++ & (starts.length - 1)];
    long hi = lo + 2L * (rangeEntries - 1);
    PrefetchingBPlusTree.RangeScan scan = tree.scan(lo, hi, prefetch);
    long sum = 0;
    for (int got; (got = scan.next(batch)) > 0; ) {
      for (int i = 0; i < got; i++) {
        sum += batch[i];
      }
    }
    return sum;
  }
}
