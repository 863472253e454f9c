package dev.memwall.bench.frequent;

import dev.memwall.bench.ZipfRanks;
import dev.memwall.core.frequent.SpaceSaving;
import dev.memwall.core.frequent.StandingFrequent;
import dev.memwall.core.frequent.StandingTopK;
import dev.memwall.core.memory.EngineMemory;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.LongsSketch;
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
 * The experiment of Das, Agrawal and El Abbadi 2008 (DaMoN, seed 001): elements per second through a
 * frequent-elements structure while queries come in between the elements. An invocation counts a
 * stream of {@value #STREAM} keys drawn from a Zipf distribution of {@code skew} over
 * {@code distinct} ranks (scrambled into random longs) into a new structure; {@code queryLoad} is the
 * share of the operations (elements and queries) that are queries, as in the paper (10%: a query
 * after every 9 elements, 50%: after every element), alternately a top-10 and a frequent-elements
 * query at support 0.001. The score is elements per second, the queries' time included.
 *
 * <p>Four structures: {@link SpaceSaving} with {@value #COUNTERS} counters (errors at most
 * N / 1024), whose Stream Summary answers a query by walking its largest buckets (the paper's
 * interval queries); the same summary keeping a {@link StandingTopK} and a {@link StandingFrequent}
 * answer up to date with every element, which a query reads without a walk (its continuous queries:
 * their keys come in no order, where the walk's come largest first); Apache
 * DataSketches' {@link LongsSketch} (the version Spark uses) with a map of 4 x {@value #COUNTERS}
 * slots (its error bound 3.5 N / 4096, about the same), which sorts its items for every query; and
 * {@link ExactCounts}, an exact count per key in an open-addressing table, which scans all its counts
 * for every query.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@State(Scope.Benchmark)
public class FrequentElementsBenchmark {
  static final int STREAM = 1 << 18;
  static final int COUNTERS = 1024;
  static final int TOP_K = 10;
  static final double PHI = 0.001;

  @Param({"0.5", "1.0", "1.5", "2.0"})
  public double skew;

  @Param({"0", "10", "50"})
  public int queryLoad;

  /** Zipf ranks; the exact baseline's every query scans a table of 2 to 4 slots per rank seen. */
  @Param({"16384"})
  public int distinct;

  private long[] stream;
  /** Elements between two queries; 0: no queries. */
  private int queryEvery;
  private EngineMemory memory;
  private final long[] answer = new long[4 * COUNTERS];

  @Setup(Level.Trial)
  public void setUp() {
    stream = zipf(STREAM, distinct, skew, 42);
    queryEvery = queryEvery(queryLoad);
    memory = EngineMemory.create("frequent elements benchmark");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    memory.close();
  }

  /** Elements between two queries for a query load of {@code percent}: queries are that share of the operations. */
  static int queryEvery(int percent) {
    if (percent < 0 || percent >= 100) {
      throw new IllegalArgumentException("the query load is a percentage from 0 to 99, got " + percent);
    }
    return percent == 0 ? 0 : (int) Math.round(100.0 / percent) - 1;
  }

  /** {@code length} keys, rank r drawn with weight 1 / r^skew out of {@code distinct}, each rank a random long. */
  static long[] zipf(int length, int distinct, double skew, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] keys = new long[distinct];
    for (int r = 0; r < distinct; r++) {
      keys[r] = random.nextLong();
    }
    ZipfRanks ranks = new ZipfRanks(distinct, skew);
    long[] stream = new long[length];
    for (int i = 0; i < length; i++) {
      stream[i] = keys[ranks.next(random)];
    }
    return stream;
  }

  @Benchmark
  @OperationsPerInvocation(STREAM)
  public long spaceSaving() {
    try (SpaceSaving summary = SpaceSaving.create(memory, COUNTERS)) {
      long sink = 0;
      int queries = 0;
      for (int i = 0; i < stream.length; i++) {
        summary.offer(stream[i]);
        if (queryEvery != 0 && (i + 1) % queryEvery == 0) {
          int n = (queries++ & 1) == 0 ? summary.topKKeys(TOP_K, answer) : summary.frequentKeys(PHI, answer);
          sink += n == 0 ? 0 : answer[0];
        }
      }
      return sink + summary.monitored();
    }
  }

  @Benchmark
  @OperationsPerInvocation(STREAM)
  public long spaceSavingStanding() {
    try (SpaceSaving summary = SpaceSaving.create(memory, COUNTERS)) {
      StandingTopK top = summary.standingTopK(TOP_K);
      StandingFrequent frequent = summary.standingFrequent(PHI);
      long sink = 0;
      int queries = 0;
      for (int i = 0; i < stream.length; i++) {
        summary.offer(stream[i]);
        if (queryEvery != 0 && (i + 1) % queryEvery == 0) {
          int n = (queries++ & 1) == 0 ? top.keys(answer) : frequent.keys(answer);
          sink += n == 0 ? 0 : answer[0];
        }
      }
      return sink + summary.monitored();
    }
  }

  @Benchmark
  @OperationsPerInvocation(STREAM)
  public long dataSketches() {
    LongsSketch sketch = new LongsSketch(4 * COUNTERS);
    long sink = 0;
    int queries = 0;
    for (int i = 0; i < stream.length; i++) {
      sketch.update(stream[i]);
      if (queryEvery != 0 && (i + 1) % queryEvery == 0) {
        LongsSketch.Row[] rows = (queries++ & 1) == 0 ? sketch.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES)
            : sketch.getFrequentItems((long) (PHI * sketch.getStreamLength()), ErrorType.NO_FALSE_NEGATIVES);
        sink += rows.length == 0 ? 0 : rows[0].getItem();
      }
    }
    return sink + sketch.getNumActiveItems();
  }

  @Benchmark
  @OperationsPerInvocation(STREAM)
  public long exactHashCount() {
    ExactCounts counts = new ExactCounts();
    long sink = 0;
    int queries = 0;
    for (int i = 0; i < stream.length; i++) {
      counts.offer(stream[i]);
      if (queryEvery != 0 && (i + 1) % queryEvery == 0) {
        int n = (queries++ & 1) == 0 ? counts.topK(TOP_K, answer) : counts.frequent(PHI, answer);
        sink += n == 0 ? 0 : answer[0];
      }
    }
    return sink;
  }
}
