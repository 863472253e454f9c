package dev.memwall.bench.concurrent;

import dev.memwall.core.concurrent.McsLock;
import dev.memwall.core.concurrent.TatasLock;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.Placement;
import dev.memwall.index.node.NodeStamps;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.StampedLock;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The reader-writer microbenchmark of Johnson, Pandis and Ailamaki (2008), Fig. 3: the loop of
 * {@link CriticalSectionBenchmark}, where each iteration is a write with probability {@code 1 /
 * (readsPerWrite + 1)}, drawn in advance per thread as the paper's pre-computed random numbers. A
 * write increments two shared plain fields to the same value; a read reads both, and a torn read
 * (the two differ after a validated read) fails the run. Fig. 3 left is {@code readsPerWrite = 7}
 * against the thread count, Fig. 3 right {@code readsPerWrite} from 0 to 127 at a fixed thread count;
 * the paper's delays are 100 ns each, which the page converts to tokens with {@link
 * CriticalSectionBenchmark#baseline}'s figure.
 *
 * <p>The primitives: a mutex for readers and writers alike ({@link TatasLock}, {@link McsLock}),
 * the JDK's non-fair {@link ReentrantReadWriteLock}, {@link StampedLock}'s optimistic reads (the
 * JDK's OCC: validate after reading, take the read lock after a failed validation), and memwall's
 * own version stamps ({@link NodeStamps}, the seqlock the disk B+-tree's optimistic readers use) with
 * writers serialized by an {@link McsLock}, as the paper's OCC serializes writers through an MCS
 * lock; a reader retries a few times and then takes that lock itself, so writers cannot starve it.
 * {@link #baseline} does the same work without any exclusion. The methods are alike on purpose, one
 * per primitive, for the reason {@link CriticalSectionBenchmark} gives.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class ReaderWriterBenchmark {
  /** Optimistic tries before a reader of the version stamps takes the writers' lock. */
  private static final int OPTIMISTIC_TRIES = 4;

  /** Reads per write (0: writes only). */
  @Param({"7"})
  public int readsPerWrite;

  /** The delay outside and the delay inside the critical section, in consumeCPU tokens. */
  @Param({"40"})
  public int delay;

  private final TatasLock tatas = new TatasLock();
  private final McsLock mcs = new McsLock();
  private final ReentrantReadWriteLock readWrite = new ReentrantReadWriteLock();
  private final StampedLock stamped = new StampedLock();
  private final AtomicInteger threadSeeds = new AtomicInteger();
  private EngineMemory memory;
  private NodeStamps stamps;
  private long first;
  private long second;

  /** One thread's pre-drawn sequence of reads and writes, and its MCS queue node. */
  @State(Scope.Thread)
  public static class Ops {
    private static final int LENGTH = 1 << 12;
    final boolean[] writes = new boolean[LENGTH];
    final McsLock.Node node = new McsLock.Node();
    int next;

    @Setup(Level.Trial)
    public void draw(ReaderWriterBenchmark shared) {
      SplittableRandom random = new SplittableRandom(shared.threadSeeds.incrementAndGet());
      for (int i = 0; i < LENGTH; i++) {
        writes[i] = random.nextInt(shared.readsPerWrite + 1) == 0;
      }
    }

    boolean nextIsWrite() {
      boolean write = writes[next];
      next = (next + 1) & (LENGTH - 1);
      return write;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("reader-writer-benchmark");
    stamps = new NodeStamps(memory, 1, Placement.DEFAULT);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    stamps.close();
    memory.close();
  }

  private long write() {
    Blackhole.consumeCPU(delay);
    first++;
    second = first;
    return first;
  }

  private long read() {
    Blackhole.consumeCPU(delay);
    return first - second;
  }

  private static long checked(long difference) {
    if (difference != 0) {
      throw new IllegalStateException("a validated read saw a torn write: " + difference);
    }
    return difference;
  }

  @Benchmark
  public long baseline(Ops ops) {
    Blackhole.consumeCPU(delay);
    return ops.nextIsWrite() ? write() : read();
  }

  @Benchmark
  public long tatasMutex(Ops ops) {
    Blackhole.consumeCPU(delay);
    boolean write = ops.nextIsWrite();
    tatas.lock();
    try {
      return write ? write() : checked(read());
    } finally {
      tatas.unlock();
    }
  }

  @Benchmark
  public long mcsMutex(Ops ops) {
    Blackhole.consumeCPU(delay);
    boolean write = ops.nextIsWrite();
    mcs.lock(ops.node);
    try {
      return write ? write() : checked(read());
    } finally {
      mcs.unlock(ops.node);
    }
  }

  @Benchmark
  public long readWriteLock(Ops ops) {
    Blackhole.consumeCPU(delay);
    if (ops.nextIsWrite()) {
      readWrite.writeLock().lock();
      try {
        return write();
      } finally {
        readWrite.writeLock().unlock();
      }
    }
    readWrite.readLock().lock();
    try {
      return checked(read());
    } finally {
      readWrite.readLock().unlock();
    }
  }

  @Benchmark
  public long stampedOptimistic(Ops ops) {
    Blackhole.consumeCPU(delay);
    if (ops.nextIsWrite()) {
      long stamp = stamped.writeLock();
      try {
        return write();
      } finally {
        stamped.unlockWrite(stamp);
      }
    }
    long stamp = stamped.tryOptimisticRead();
    if (stamp != 0) {
      long difference = read();
      if (stamped.validate(stamp)) {
        return checked(difference);
      }
    }
    stamp = stamped.readLock();
    try {
      return checked(read());
    } finally {
      stamped.unlockRead(stamp);
    }
  }

  @Benchmark
  public long versionStamps(Ops ops) {
    Blackhole.consumeCPU(delay);
    if (ops.nextIsWrite()) {
      mcs.lock(ops.node);
      try {
        stamps.beginWrite(0);
        long written = write();
        stamps.endWrite(0);
        return written;
      } finally {
        mcs.unlock(ops.node);
      }
    }
    for (int tries = 0; tries < OPTIMISTIC_TRIES; tries++) {
      MemorySegment region = stamps.region();
      long stamp = NodeStamps.readStamp(region, 0);
      if ((stamp & 1) != 0) {
        Thread.onSpinWait(); // a writer is inside
        continue;
      }
      long difference = read();
      if (stamps.validate(region, 0, stamp)) {
        return checked(difference);
      }
    }
    mcs.lock(ops.node);
    try {
      return checked(read());
    } finally {
      mcs.unlock(ops.node);
    }
  }
}
