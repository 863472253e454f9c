package dev.memwall.bench.join;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.hw.CalibratedProfile;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.algorithm.BuildTable;
import dev.memwall.join.algorithm.DenseKeyTable;
import dev.memwall.join.algorithm.OpenAddressingTable;
import dev.memwall.join.keys.KeyColumns;
import dev.memwall.join.pipeline.HashProbeStage;
import java.util.List;
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
 * The pipelined hash join ({@link HashProbeStage}) on Balkesen et al.'s workload A, count-only: a
 * build side of {@code build} unique keys in random order and a probe side of 64M uniform foreign
 * keys (scaled from 256M, as {@link WorkloadABenchmark}), the probe streaming from a scan through the
 * stage into a COUNT(*); and the build of the stage's table alone. {@code threads} is the pipeline's
 * (and the build's) thread count. {@code stride} multiplies every key: at 1 the keys are 1..build,
 * dense, and the stage builds a {@link DenseKeyTable}; at 101 they spread too thin for one, and it
 * builds an {@link OpenAddressingTable} (the same join, the hash table's cost). JMH's ops/s are probe
 * tuples per second for {@code probe}, whole builds per second for {@code buildTable}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g"})
@State(Scope.Benchmark)
public class PipelinedJoinBenchmark {
  @Param({"16777216"})
  public int build;

  @Param({"1", "2"})
  public int threads;

  @Param({"1", "101"})
  public int stride;

  private EngineMemory memory;
  private Table left;
  private Table right;
  private KeyColumns buildKeys;
  private HashProbeStage stage;
  private ExecutionContext context;

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("pipelined-join");
    right = JoinBenchData.uniqueShuffled(memory, build, 1, stride);
    left = JoinBenchData.foreignKeys(memory, WorkloadABenchmark.PROBE, build, 0, 2, stride);
    context = ExecutionContext.builder(memory).threads(threads).machine(CalibratedProfile.install(null)).build();
    buildKeys = KeyColumns.of(right, List.of("k"), "right");
    stage = HashProbeStage.build(right, List.of("k"), JoinType.INNER, List.of("k"), List.of(ColumnType.INT32),
        List.of(), List.of(), JoinSettings.profile().fastCacheBytes(), context);
  }

  /** Probe tuples per second: the probe side streams through the stage into COUNT(*). */
  @Benchmark
  @OperationsPerInvocation(WorkloadABenchmark.PROBE)
  public long probe() {
    try (Table count = Plan.scan(left).stage(stage).aggregate(List.of(), Aggregate.countStar("n")).execute(context)) {
      return (Long) count.batches().getFirst().column(0).getObject(0);
    }
  }

  /**
   * Builds per second: the table the stage builds over the build side, as it chooses it (the dense
   * key table where it applies and is no larger, else the hash table on {@code threads} threads).
   */
  @Benchmark
  public long buildTable() {
    DenseKeyTable dense = DenseKeyTable.build(buildKeys, memory);
    try (BuildTable table = dense != null ? dense : OpenAddressingTable.build(buildKeys, memory, threads)) {
      return table.bytes();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    stage.close();
    left.close();
    right.close();
    memory.close();
  }
}
