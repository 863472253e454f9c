package dev.memwall.bench.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reader-writer benchmark's primitives exclude what they must: run by several threads at once
 * (more than the cores), no validated or locked read sees a half-done write; the draw of reads and
 * writes follows the ratio; the version stamps are freed.
 */
@ExtendWith(LeakCheck.class)
class ReaderWriterBenchmarkTest {
  private static final int THREADS = 4;
  private static final int ITERATIONS = 20_000;

  private static ReaderWriterBenchmark.Ops ops(ReaderWriterBenchmark benchmark) {
    ReaderWriterBenchmark.Ops ops = new ReaderWriterBenchmark.Ops();
    ops.draw(benchmark);
    return ops;
  }

  @Test
  void noReadSeesATornWriteUnderAnyPrimitive(EngineMemory unused) throws InterruptedException {
    List<ToLongFunction<ReaderWriterBenchmark.Ops>> kinds = new ArrayList<>();
    ReaderWriterBenchmark benchmark = new ReaderWriterBenchmark();
    benchmark.readsPerWrite = 1;
    benchmark.delay = 0;
    benchmark.setUp();
    try {
      kinds.add(benchmark::tatasMutex);
      kinds.add(benchmark::mcsMutex);
      kinds.add(benchmark::readWriteLock);
      kinds.add(benchmark::stampedOptimistic);
      kinds.add(benchmark::versionStamps);
      for (ToLongFunction<ReaderWriterBenchmark.Ops> kind : kinds) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          ReaderWriterBenchmark.Ops ops = ops(benchmark);
          threads.add(Thread.ofPlatform().start(() -> {
            try {
              for (int i = 0; i < ITERATIONS; i++) {
                kind.applyAsLong(ops);
              }
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
            }
          }));
        }
        for (Thread thread : threads) {
          thread.join(60_000);
          assertFalse(thread.isAlive(), "a thread still runs after 60 s");
        }
        if (failure.get() != null) {
          throw new AssertionError("a thread failed", failure.get());
        }
      }
    } finally {
      benchmark.tearDown();
    }
  }

  @Test
  void theDrawFollowsTheRatio(EngineMemory unused) {
    ReaderWriterBenchmark benchmark = new ReaderWriterBenchmark();
    benchmark.readsPerWrite = 0;
    ReaderWriterBenchmark.Ops writesOnly = ops(benchmark);
    for (boolean write : writesOnly.writes) {
      assertTrue(write);
    }
    benchmark.readsPerWrite = 7;
    ReaderWriterBenchmark.Ops sevenReads = ops(benchmark);
    int writes = 0;
    for (boolean write : sevenReads.writes) {
      writes += write ? 1 : 0;
    }
    double expected = sevenReads.writes.length / 8.0;
    assertTrue(Math.abs(writes - expected) < 0.25 * expected, writes + " writes of " + sevenReads.writes.length);
  }
}
