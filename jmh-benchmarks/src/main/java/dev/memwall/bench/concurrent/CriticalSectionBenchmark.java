package dev.memwall.bench.concurrent;

import dev.memwall.core.concurrent.McsLock;
import dev.memwall.core.concurrent.TatasLock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The mutex microbenchmark of Johnson, Pandis and Ailamaki (2008), Fig. 2: every thread (JMH's
 * {@code -t}) loops on {@code consumeCPU(delay)}, acquire, {@code consumeCPU(delay)} and
 * increment of a shared plain counter, release; the score (average time, per thread) is the paper's
 * cost per iteration per thread. Fig. 2 left is {@code delay = 0} against the thread count, Fig. 2
 * right {@code delay} varied at a fixed thread count.
 *
 * <p>The locks: memwall's {@link TatasLock} and {@link McsLock} (with a caller-kept node per
 * thread, as the paper's MCS), {@link ReentrantLock} (non-fair) and a {@code synchronized} block, the
 * JVM's counterparts of the paper's pthread mutex. {@link #baseline} runs the same delays and
 * increment without a lock. At one thread, the growth of its time with {@code delay}, divided by
 * the two delays' tokens, is what a {@link Blackhole#consumeCPU} token costs in nanoseconds on the
 * machine of that run (the page reports it from the run's own results, since it differs between
 * processors); and it is the paper's "ideal" line for the part that needs no serialization: the
 * serialized ideal at N threads is at least N times the inside delay.
 *
 * <p>Specialization: the lock methods are alike on purpose, one per lock, so that each call site
 * sees one lock class and the JIT inlines its acquire and release as in code that uses that lock; a
 * shared method over an interface would measure a call that is not inlined.
 *
 * <p>On a machine with fewer cores than threads, holders are preempted: that is where the locks'
 * spin-then-park matters, and the {@code synchronized} and {@link ReentrantLock} waiters park too.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class CriticalSectionBenchmark {
  /**
   * The delay outside and the delay inside the critical section, alike as in the paper, in {@link
   * Blackhole#consumeCPU} tokens.
   */
  @Param({"0"})
  public int delay;

  private final TatasLock tatas = new TatasLock();
  private final McsLock mcs = new McsLock();
  private final ReentrantLock reentrant = new ReentrantLock();
  private final Object monitor = new Object();
  private long counter;

  /** A thread's MCS queue node, kept for the whole run as the paper's threads keep theirs. */
  @State(Scope.Thread)
  public static class QueueNode {
    final McsLock.Node node = new McsLock.Node();
  }

  @Benchmark
  public long baseline() {
    Blackhole.consumeCPU(delay);
    Blackhole.consumeCPU(delay);
    return ++counter; // racy without a lock, on purpose: the same work with no exclusion
  }

  @Benchmark
  public long tatas() {
    Blackhole.consumeCPU(delay);
    tatas.lock();
    try {
      Blackhole.consumeCPU(delay);
      return ++counter;
    } finally {
      tatas.unlock();
    }
  }

  @Benchmark
  public long mcs(QueueNode thread) {
    Blackhole.consumeCPU(delay);
    mcs.lock(thread.node);
    try {
      Blackhole.consumeCPU(delay);
      return ++counter;
    } finally {
      mcs.unlock(thread.node);
    }
  }

  @Benchmark
  public long reentrantLock() {
    Blackhole.consumeCPU(delay);
    reentrant.lock();
    try {
      Blackhole.consumeCPU(delay);
      return ++counter;
    } finally {
      reentrant.unlock();
    }
  }

  @Benchmark
  public long synchronizedBlock() {
    Blackhole.consumeCPU(delay);
    synchronized (monitor) {
      Blackhole.consumeCPU(delay);
      return ++counter;
    }
  }
}
