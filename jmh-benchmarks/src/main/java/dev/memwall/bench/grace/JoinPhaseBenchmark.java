package dev.memwall.bench.grace;

import dev.memwall.bench.join.JoinSettings;
import dev.memwall.core.hash.Hashing;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.join.prefetch.BucketTable;
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
 * loops. The build partition is {@code build} tuples of {@code tupleBytes} each (16: the spill
 * pages' code, row and key; wider: the thesis's 20-140-byte tuples, rounded to 8, the payload after
 * those 16 bytes); with 16-byte tuples, headers and cells the default 8M tuples take 320 MiB, far
 * beyond this VM's last-level cache. Every probe tuple (as wide as a build tuple) matches
 * {@code matches} build tuples (build keys repeat {@code matches} times) or none,
 * {@code matchingPercent} of them matching. Each match copies both tuples into an output buffer, as
 * the thesis's join does. Results per probe tuple (ops = tuples); G and D from the machine profile
 * unless {@code group} or {@code distance} are set (sweeps).
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

  /** Bytes per build and probe tuple: 16, or the thesis's sizes rounded to 8 (24, 56, 104, 136). */
  @Param({"16"})
  public int tupleBytes;

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
  private OffHeapBuffer output;
  private CopyingSink sink;

  /**
   * Copies each matching pair of tuples into a 64 KiB output buffer (reused from its start when full,
   * as if flushed); one implementation, so the sink call stays monomorphic.
   */
  static final class CopyingSink implements PrefetchingHashJoin.ProbeSink {
    private final MemorySegment build;
    private final MemorySegment probe;
    private final MemorySegment out;
    private final long tupleBytes;
    private long at;
    long matched;
    long finished;

    CopyingSink(MemorySegment build, MemorySegment probe, MemorySegment out, int tupleBytes) {
      this.build = build;
      this.probe = probe;
      this.out = out;
      this.tupleBytes = tupleBytes;
    }

    @Override
    public boolean match(int probeRow, int buildRow) {
      if (at + 2 * tupleBytes > out.byteSize()) {
        at = 0;
      }
      MemorySegment.copy(build, buildRow * tupleBytes, out, at, tupleBytes);
      MemorySegment.copy(probe, probeRow * tupleBytes, out, at + tupleBytes, tupleBytes);
      at += 2 * tupleBytes;
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
    PrefetchTuning tuning = overridden(PrefetchTuning.from(JoinSettings.profile()), group, distance);
    loops = new PrefetchingHashJoin(mode, tuning);
    table = new BucketTable(memory, tupleBytes);
    MemorySegment space = table.tupleSpace(build);
    int distinct = Math.max(1, build / matches);
    long[] keys = new long[build];
    for (int i = 0; i < build; i++) {
      keys[i] = Hashing.mix64(i % distinct);
    }
    shuffle(keys, 1);
    for (int i = 0; i < build; i++) {
      write(space, (long) i * tupleBytes, keys[i], i);
    }
    new PrefetchingHashJoin(PrefetchingHashJoin.Mode.PLAIN, tuning).build(table, build, 1);
    probe = memory.allocate((long) PROBE * tupleBytes);
    SplittableRandom random = new SplittableRandom(2);
    MemorySegment p = probe.segment();
    for (int i = 0; i < PROBE; i++) {
      long key = random.nextInt(100) < matchingPercent ? random.nextInt(distinct) : distinct + random.nextInt(1 << 30);
      write(p, (long) i * tupleBytes, Hashing.mix64(key), i);
    }
    output = memory.allocate(1 << 16);
    sink = new CopyingSink(space, p, output.segment(), tupleBytes);
  }

  /** {@code tuned} with the {@code group} and {@code distance} parameters where set, both printed in the run's log. */
  static PrefetchTuning overridden(PrefetchTuning tuned, int group, int distance) {
    PrefetchTuning tuning = tuned.overriddenBy(group, distance);
    System.out.println();
    System.out.println("tuning " + tuning + " (profile: " + tuned + ")");
    return tuning;
  }

  /** The (code, row, key) head of a tuple at byte {@code at}; the payload after it stays zero. */
  private static void write(MemorySegment s, long at, long key, int row) {
    s.set(INT, at, (int) (key >>> 32));
    s.set(INT, at + 4, row);
    s.set(LONG, at + 8, key);
  }

  private static void shuffle(long[] keys, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = keys.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long t = keys[i];
      keys[i] = keys[j];
      keys[j] = t;
    }
  }

  /** Probing the table with 4M probe tuples; time per probe tuple. */
  @Benchmark
  @OperationsPerInvocation(PROBE)
  public long probe() {
    loops.probe(table, probe.segment(), tupleBytes, PROBE, false, sink);
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
    output.close();
    memory.close();
  }
}
