package dev.memwall.bench;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.Q1;
import dev.memwall.tpch.query.Q6;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchParameters;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
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
 * What streaming costs a host: TPC-H Q1 and Q6 over lineitem as a table (zero-copy mapped batches,
 * result a {@link Table}) against the same queries over a {@link BatchStream} of those batches (each
 * handed over as a slice the scan closes when its rows have passed) with the result read through
 * {@link Plan#stream} into a host allocator. Compare {@code streaming} with {@code materialized} as
 * a ratio within one run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx8g")
@State(Scope.Benchmark)
public class StreamingQueryBenchmark {
  @Param({"1", "6"})
  public int query;

  @Param({"1", "2"})
  public int threads;

  @Param({"1"})
  public double scaleFactor;

  private EngineMemory memory;
  private TpchDatabase database;
  private ExecutionContext context;
  private BufferAllocator host;
  private QueryParameters parameters;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    memory = EngineMemory.create("streaming-benchmark");
    database = TpchBenchData.load(scaleFactor, memory);
    context = TpchBenchData.context(memory, threads);
    host = new RootAllocator();
    parameters = TpchParameters.validation(query, scaleFactor);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    host.close();
    database.close();
    memory.close();
  }

  private Plan plan(Plan lineitem) {
    return query == 1 ? Q1.plan(lineitem, parameters.integer("DELTA"), List.of()) : Q6.plan(lineitem, parameters);
  }

  @Benchmark
  public long materialized() {
    try (Table result = plan(Plan.scan(database.table("lineitem"))).execute(context)) {
      return result.rowCount();
    }
  }

  @Benchmark
  public long streaming() throws IOException {
    Table lineitem = database.table("lineitem");
    Iterator<VectorSchemaRoot> slices = lineitem.roots().stream()
        .map(root -> root.slice(0, root.getRowCount())).iterator();
    long rows = 0;
    try (BatchStream stream = BatchStream.of(lineitem.schema(), slices, lineitem.provider());
        ArrowReader result = plan(Plan.scan(stream)).stream(context, host)) {
      while (result.loadNextBatch()) {
        rows += result.getVectorSchemaRoot().getRowCount();
      }
    }
    return rows;
  }
}
