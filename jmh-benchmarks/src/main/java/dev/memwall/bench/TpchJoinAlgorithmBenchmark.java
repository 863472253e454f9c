package dev.memwall.bench;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.query.TpchQuery;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The join-heavy TPC-H queries (Q2-Q5, Q7-Q11) with every join of their plans left to the planner
 * ({@code AUTO}) or forced to one algorithm (through {@link Relation.JoinSpec#ALGORITHM_PROPERTY}),
 * on the same data and thread count: the effect of the planner's choice on whole queries, as a
 * ratio to {@code AUTO} within one run. A forced algorithm also turns off the relational helper's
 * build-on-the-smaller-side semi and anti joins, which only {@code AUTO} plans.
 *
 * <p>Data comes from the launcher's cache ({@code ~/.cache/memwall/sf<N>}), generated on first use.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx8g")
@State(Scope.Benchmark)
public class TpchJoinAlgorithmBenchmark {
  @Param({"2", "3", "4", "5", "7", "8", "9", "10", "11"})
  public int query;

  @Param({"AUTO", "PHASH_PLUS", "OPEN_ADDRESSING"})
  public String joinAlgorithm;

  @Param({"1"})
  public int threads;

  @Param({"1"})
  public double scaleFactor;

  private EngineMemory memory;
  private TpchDatabase database;
  private TpchQuery plan;
  private ExecutionContext context;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    System.setProperty(Relation.JoinSpec.ALGORITHM_PROPERTY, joinAlgorithm);
    memory = EngineMemory.create("tpch-join-algorithm-benchmark");
    database = TpchBenchData.load(scaleFactor, memory);
    plan = TpchQueries.require(query);
    context = TpchBenchData.context(memory, threads);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    System.clearProperty(Relation.JoinSpec.ALGORITHM_PROPERTY);
    database.close();
    memory.close();
  }

  @Benchmark
  public long run() {
    try (Table result = plan.run(database, context)) {
      return result.rowCount();
    }
  }
}
