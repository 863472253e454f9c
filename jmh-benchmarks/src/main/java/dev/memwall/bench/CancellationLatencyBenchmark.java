package dev.memwall.bench;

import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.hw.CalibratedProfile;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.query.TpchQuery;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 * How long a TPC-H query takes to stop once its host cancels it: each invocation's setup starts the
 * query on a host thread and lets it run for a random time within its warm duration; the measured
 * part is {@link CancellationToken#cancel} until the query has thrown
 * {@link QueryCancelledException} and freed its memory. Sample mode reports the percentiles.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 4)
@Fork(value = 1, jvmArgsAppend = "-Xmx8g")
@State(Scope.Benchmark)
public class CancellationLatencyBenchmark {
  @Param({"1", "3", "9", "18", "21"})
  public int query;

  @Param({"2"})
  public int threads;

  @Param({"1"})
  public double scaleFactor;

  private EngineMemory memory;
  private TpchDatabase database;
  private TpchQuery plan;
  private ExecutorService host;
  private final SplittableRandom random = new SplittableRandom(42);
  private long runMillis;
  private CancellationToken token;
  private Future<?> running;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    memory = EngineMemory.create("cancellation-benchmark");
    database = TpchBenchData.load(scaleFactor, memory);
    plan = TpchQueries.require(query);
    host = Executors.newSingleThreadExecutor();
    ExecutionContext context = context(null);
    long fastest = Long.MAX_VALUE;
    for (int run = 0; run < 6; run++) { // the first runs compile; the fastest of the rest is the warm time
      long start = System.nanoTime();
      plan.run(database, context).close();
      fastest = Math.min(fastest, System.nanoTime() - start);
    }
    runMillis = Math.max(2, TimeUnit.NANOSECONDS.toMillis(fastest));
  }

  private ExecutionContext context(CancellationToken cancellation) {
    return ExecutionContext.builder(memory).threads(threads).cancellation(cancellation)
        .machine(CalibratedProfile.install(null)).build();
  }

  /**
   * Starts the query and lets it run for a random part (under 4/5) of its warm time; a run that
   * finished before that is started again, so the cancel always meets a running query.
   */
  @Setup(Level.Invocation)
  public void start() throws InterruptedException, ExecutionException {
    while (true) {
      token = new CancellationToken();
      ExecutionContext context = context(token);
      running = host.submit(() -> {
        try (Table result = plan.run(database, context)) {
          return result.rowCount();
        }
      });
      Thread.sleep(random.nextLong(runMillis * 4 / 5));
      if (!running.isDone()) {
        return;
      }
      running.get();
    }
  }

  @Benchmark
  public boolean cancel() throws InterruptedException {
    token.cancel();
    try {
      running.get();
      return false; // it finished before the cancel reached it
    } catch (ExecutionException e) {
      if (e.getCause() instanceof QueryCancelledException) {
        return true;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    host.shutdownNow();
    database.close();
    memory.close();
  }
}
