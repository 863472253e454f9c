package dev.memwall.bench.grace;

import dev.memwall.bench.join.JoinSettings;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.join.prefetch.PrefetchTuning;
import dev.memwall.join.prefetch.PrefetchingHashJoin;
import dev.memwall.join.prefetch.PrefetchingPartitioner;
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
 * Seed 002, section 4.6 / figures 4.16 and 4.24 in shape: the partition phase's loop (read a tuple,
 * compute its partition from the 4-byte hash code at its start, copy it into that partition's
 * output page, hand full pages on) in plain, group-prefetched and software-pipelined form
 * ({@link PrefetchingPartitioner}), across tuple sizes and partition counts. With 8 KiB pages, 4096
 * partitions keep 32 MiB of output pages open: beyond the cache, so that every tuple's destination
 * line misses, as with the thesis's many partitions. The input is {@value #TUPLES} tuples with
 * uniform random hash codes (20 to 140 MiB); one operation is one tuple. The page sink only counts
 * pages and reads one word of each, so the loop itself is measured, not I/O. G and D from the
 * machine profile ({@link PrefetchTuning#forPartitioning}) unless {@code group} or {@code distance}
 * are set.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@State(Scope.Benchmark)
public class PartitionPhaseBenchmark {
  static final int TUPLES = 1 << 20;

  @Param({"PLAIN", "GROUP", "PIPELINED"})
  public PrefetchingHashJoin.Mode mode;

  @Param({"20", "60", "100", "140"})
  public int tupleBytes;

  @Param({"64", "512", "4096"})
  public int partitions;

  @Param({"8192"})
  public int pageBytes;

  /** G; 0 = from the profile. */
  @Param({"0"})
  public int group;

  /** D; 0 = from the profile. */
  @Param({"0"})
  public int distance;

  private EngineMemory memory;
  private OffHeapBuffer input;
  private PrefetchingPartitioner partitioner;
  private final PageCounter sink = new PageCounter();

  /** Counts pages and reads one word of each: cheap, so that the loop is what is measured. */
  static final class PageCounter implements PrefetchingPartitioner.PageSink {
    long pages;
    long checksum;

    @Override
    public void flush(int partition, MemorySegment page) {
      pages++;
      checksum += page.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("partition-phase");
    PrefetchTuning tuning = JoinPhaseBenchmark.overridden(PrefetchTuning.forPartitioning(JoinSettings.profile()), group,
        distance);
    input = memory.allocate((long) TUPLES * tupleBytes);
    MemorySegment in = input.segment();
    SplittableRandom random = new SplittableRandom(3);
    for (long o = 0; o < in.byteSize(); o += Long.BYTES) {
      if (o + Long.BYTES <= in.byteSize()) {
        in.set(ValueLayout.JAVA_LONG_UNALIGNED, o, random.nextLong());
      }
    }
    partitioner = new PrefetchingPartitioner(memory, partitions, pageBytes, tupleBytes,
        PrefetchingPartitioner.Routing.code(0), mode, tuning, sink);
    partitioner.partition(in, TUPLES); // fault the pages in
  }

  /** Partitioning {@value #TUPLES} tuples; pages stay open across operations, as in a long input. */
  @Benchmark
  @OperationsPerInvocation(TUPLES)
  public long partition() {
    partitioner.partition(input.segment(), TUPLES);
    return sink.pages + sink.checksum + partitioner.touched();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    partitioner.close();
    input.close();
    memory.close();
  }
}
