package dev.memwall.bench.join2;

import dev.memwall.core.hash.Hashing;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.join.grace.BucketTable;
import dev.memwall.join.prefetch.PrefetchTuning;
import dev.memwall.join.prefetch.PrefetchingHashJoin;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
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
 * Seed 002, chapter 4 in shape: the join phase of GRACE (build a {@link BucketTable} over one build
 * partition, probe it with the probe partition) with plain, group-prefetched and software-pipelined
 * loops. The build partition is {@code build} 16-byte tuples; with its headers and cells (40 bytes a
 * tuple) the default 8M tuples take 320 MiB, 10x the 32 MiB last-level cache sysfs reports here
 * (and 40x the 2-8 MiB this VM effectively gets). Every probe tuple matches {@code matches} build
 * tuples (build keys repeat {@code matches} times) or none, {@code matchingPercent} of them matching.
 * Results per tuple (ops = tuples); G and D from the machine profile unless {@code group} or
 * {@code distance} are set (sweeps).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@State(Scope.Benchmark)
public class JoinPhaseBenchmark {
  static final int PROBE = 1 << 22;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

  @Param({"8388608"})
  public int build;

  @Param({"1"})
  public int matches;

  @Param({"100"})
  public int matchingPercent;

  @Param({"PLAIN", "GROUP", "PIPELINED"})
  public PrefetchingHashJoin.Mode mode;

  /** G; 0 = from the profile. */
  @Param({"0"})
  public int group;

  /** D; 0 = from the profile. */
  @Param({"0"})
  public int distance;

  private EngineMemory memory;
  private BucketTable table;
  private OffHeapBuffer probe;
  private PrefetchingHashJoin loops;
  private final CountingSink sink = new CountingSink();

  /** Counts matches; one implementation, so the sink call stays monomorphic. */
  static final class CountingSink implements PrefetchingHashJoin.ProbeSink {
    long matched;
    long finished;

    @Override
    public boolean match(int probeRow, int buildRow) {
      matched++;
      return true;
    }

    @Override
    public void finish(int probeRow, boolean found) {
      finished++;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("join-phase");
    PrefetchTuning tuned = PrefetchTuning.from(MachineProfile.current());
    PrefetchTuning tuning = new PrefetchTuning(group > 0 ? group : tuned.group(),
        distance > 0 ? distance : tuned.distance());
    System.out.println();
    System.out.println("tuning " + tuning + " (profile: " + tuned + ")");
    loops = new PrefetchingHashJoin(mode, tuning);
    table = new BucketTable(memory);
    MemorySegment space = table.tupleSpace(build);
    int distinct = Math.max(1, build / matches);
    for (int i = 0; i < build; i++) {
      write(space, i, Hashing.mix64(i % distinct), i);
    }
    shuffle(space, build, 1);
    new PrefetchingHashJoin(PrefetchingHashJoin.Mode.PLAIN, tuning).build(table, build, 1);
    probe = memory.allocate((long) PROBE * 16);
    SplittableRandom random = new SplittableRandom(2);
    MemorySegment p = probe.segment();
    for (int i = 0; i < PROBE; i++) {
      long key = random.nextInt(100) < matchingPercent ? random.nextInt(distinct) : distinct + random.nextInt(1 << 30);
      write(p, i, Hashing.mix64(key), i);
    }
  }

  private static void write(MemorySegment s, int i, long key, int row) {
    s.set(INT, i * 16L, (int) (key >>> 32));
    s.set(INT, i * 16L + 4, row);
    s.set(LONG, i * 16L + 8, key);
  }

  private static void shuffle(MemorySegment s, int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long a0 = s.get(LONG, i * 16L);
      long a1 = s.get(LONG, i * 16L + 8);
      s.set(LONG, i * 16L, s.get(LONG, j * 16L));
      s.set(LONG, i * 16L + 8, s.get(LONG, j * 16L + 8));
      s.set(LONG, j * 16L, a0);
      s.set(LONG, j * 16L + 8, a1);
    }
  }

  /** Probing the table with 4M probe tuples; time per probe tuple. */
  @Benchmark
  @OperationsPerInvocation(PROBE)
  public long probe() {
    loops.probe(table, probe.segment(), PROBE, false, sink);
    return sink.matched + loops.touched();
  }

  /** Building the table over the whole build partition; time per build tuple. */
  @Benchmark
  @OperationsPerInvocation(8388608)
  public long build() {
    loops.build(table, build, 1);
    return table.size() + loops.touched();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (sink.finished == 0 && sink.matched == 0 && matchingPercent > 0) {
      System.out.println("(build only)");
    }
    table.close();
    probe.close();
    memory.close();
  }
}
