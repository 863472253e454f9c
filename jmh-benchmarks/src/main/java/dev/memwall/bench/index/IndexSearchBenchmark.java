package dev.memwall.bench.index;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.index.KeyType;
import dev.memwall.index.csb.CsbPlusTree;
import dev.memwall.index.pbtree.JumpPointers;
import dev.memwall.index.pbtree.PbTreeConfig;
import dev.memwall.index.pbtree.PrefetchingBPlusTree;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.TreeMap;
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
 * Warm random point searches (seed 002 Figures 2.10/2.11 in shape): one operation is one search
 * for a present int64 key drawn uniformly from a precomputed probe list, returning its row id.
 *
 * <p>Structures, each bulkloaded 100% full from keys {@code 0, 2, 4, ...}: {@code PB_TREE} (width
 * from the cost model and the calibrated profile, whole-node fetch), {@code ONE_LINE} (classic
 * B+-tree, one-line nodes), {@code CSB} (CSB+-tree, one-line nodes), {@code TREEMAP}
 * ({@code java.util.TreeMap<Long, Long>}) and {@code SORTED_ARRAY} (branch-free binary search over
 * sorted off-heap keys with a parallel row-id array). Width sweeps use {@code width} (0: the
 * model's choice). {@code PB_TREE_OPTIMISTIC} is {@code PB_TREE} with per-node version stamps
 * for optimistic readers ({@link PbTreeConfig#optimisticReaders()}), searched on one thread: the
 * price of the stamps when no writer runs.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g"})
@State(Scope.Benchmark)
public class IndexSearchBenchmark {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final int PROBES = 1 << 20;

  public enum Structure { PB_TREE, PB_TREE_OPTIMISTIC, ONE_LINE, CSB, TREEMAP, SORTED_ARRAY }

  @Param({"100000", "1000000", "10000000"})
  public long keys;

  @Param({"PB_TREE", "ONE_LINE", "CSB", "TREEMAP", "SORTED_ARRAY"})
  public Structure structure;

  /** Node width for PB_TREE; 0 takes the cost model's choice. */
  @Param("0")
  public int width;

  private EngineMemory memory;
  private PrefetchingBPlusTree tree;
  private CsbPlusTree csb;
  private TreeMap<Long, Long> treeMap;
  private OffHeapBuffer sortedKeys;
  private OffHeapBuffer sortedRows;
  private MemorySegment keySegment;
  private MemorySegment rowSegment;
  private long[] probes;
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("index-search");
    probes = IndexBenchData.probes(keys, PROBES, 42);
    switch (structure) {
      case PB_TREE, PB_TREE_OPTIMISTIC -> {
        PbTreeConfig config = PbTreeConfig.fromProfile(IndexBenchData.profile(), KeyType.INT64, keys)
            .withJumpPointers(JumpPointers.NONE).withOptimisticReaders(structure == Structure.PB_TREE_OPTIMISTIC);
        if (width > 0) {
          config = config.withWidth(width);
        }
        tree = PrefetchingBPlusTree.bulkload(memory, config, IndexBenchData.evenKeys(keys), 1.0);
        System.out.println("# " + tree);
      }
      case ONE_LINE -> {
        tree = PrefetchingBPlusTree.bulkload(memory, PbTreeConfig.oneLine(KeyType.INT64),
            IndexBenchData.evenKeys(keys), 1.0);
        System.out.println("# " + tree);
      }
      case CSB -> csb = CsbPlusTree.bulkload(memory, KeyType.INT64, 1, false, IndexBenchData.evenKeys(keys), 1.0);
      case TREEMAP -> {
        treeMap = new TreeMap<>();
        for (long i = 0; i < keys; i++) {
          treeMap.put(2 * i, i);
        }
      }
      case SORTED_ARRAY -> {
        sortedKeys = memory.allocate(8 * keys, Placement.HUGE_PAGES);
        sortedRows = memory.allocate(8 * keys, Placement.HUGE_PAGES);
        keySegment = sortedKeys.segment();
        rowSegment = sortedRows.segment();
        for (long i = 0; i < keys; i++) {
          keySegment.setAtIndex(LONG, i, 2 * i);
          rowSegment.setAtIndex(LONG, i, i);
        }
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (tree != null) {
      tree.close();
    }
    if (csb != null) {
      csb.close();
    }
    if (sortedKeys != null) {
      sortedKeys.close();
      sortedRows.close();
    }
    treeMap = null;
    memory.close();
  }

  private long nextProbe() {
    return probes[next++ & (PROBES - 1)];
  }

  @Benchmark
  public long search() {
    long key = nextProbe();
    return switch (structure) {
      case PB_TREE, PB_TREE_OPTIMISTIC, ONE_LINE -> tree.searchFirst(key, -1);
      case CSB -> csb.searchFirst(key, -1);
      case TREEMAP -> treeMap.get(key);
      case SORTED_ARRAY -> sortedArraySearch(key);
    };
  }

  private long sortedArraySearch(long key) {
    long base = 0;
    long len = keys;
    while (len > 1) {
      long half = len >>> 1;
      base = keySegment.getAtIndex(LONG, base + half) < key ? base + half : base;
      len -= half;
    }
    if (keySegment.getAtIndex(LONG, base) < key) {
      base++;
    }
    return base < keys && keySegment.getAtIndex(LONG, base) == key ? rowSegment.getAtIndex(LONG, base) : -1;
  }
}
