package dev.memwall.bench.index;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.pbtree.JumpPointers;
import dev.memwall.index.pbtree.PbTreeConfig;
import dev.memwall.index.pbtree.PrefetchingBPlusTree;
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
 * Batched lookups against one-at-a-time searches on the same pB+-tree: one invocation looks up
 * {@value #BATCH} random present keys; the score is per key ({@link OperationsPerInvocation}).
 * {@code ONE_AT_A_TIME} calls {@link PrefetchingBPlusTree#search} per key; {@code BATCHED} calls
 * {@link PrefetchingBPlusTree#lookupBatch} with the profile's group size (or {@code group}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@State(Scope.Benchmark)
public class BatchedLookupBenchmark {
  static final int BATCH = 1024;
  private static final int PROBES = 1 << 20;

  public enum Mode { ONE_AT_A_TIME, BATCHED }

  @Param({"1000000", "10000000"})
  public long keys;

  @Param({"ONE_AT_A_TIME", "BATCHED"})
  public Mode mode;

  /** Batch group override (0: the profile's). */
  @Param("0")
  public int group;

  /** Node width override (0: the model's). */
  @Param("0")
  public int width;

  private EngineMemory memory;
  private PrefetchingBPlusTree tree;
  private long[] probes;
  private int next;
  private final long[] batchKeys = new long[BATCH];
  private final int[] offsets = new int[BATCH + 1];
  private final RowIds out = new RowIds(2 * BATCH);

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("batched-lookup");
    PbTreeConfig config = PbTreeConfig.fromProfile(IndexBenchData.profile(), KeyType.INT64, keys)
        .withJumpPointers(JumpPointers.NONE);
    if (group > 0) {
      config = config.withBatchGroup(group);
    }
    if (width > 0) {
      config = config.withWidth(width);
    }
    tree = PrefetchingBPlusTree.bulkload(memory, config, IndexBenchData.evenKeys(keys), 1.0);
    System.out.println("# " + tree + ", group " + config.batchGroup());
    probes = IndexBenchData.probes(keys, PROBES, 3);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    tree.close();
    memory.close();
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long lookup() {
    System.arraycopy(probes, next, batchKeys, 0, BATCH);
    next = (next + BATCH) & (PROBES - 1);
    if (mode == Mode.BATCHED) {
      tree.lookupBatch(batchKeys, BATCH, offsets, out);
      return out.size() + out.get(out.size() - 1);
    }
    out.clear();
    for (int i = 0; i < BATCH; i++) {
      tree.search(batchKeys[i], out);
    }
    return out.size() + out.get(out.size() - 1);
  }
}
