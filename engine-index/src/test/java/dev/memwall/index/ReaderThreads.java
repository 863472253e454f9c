package dev.memwall.index;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Reader threads for concurrency stress tests: each thread repeats one read (with its own seeded
 * {@link Random}) until {@link #stopAndCheck()}, which joins them and fails with every reader's
 * failure. Thread safety: {@link #failed()} from any thread, the rest from the test thread.
 */
public final class ReaderThreads {
  /** One read of a reader thread; its state lives in the object, one per thread. */
  public interface Reader {
    void readOnce(Random random) throws Exception;
  }

  private final AtomicBoolean stop = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final AtomicLong reads = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();

  private ReaderThreads() {}

  /** Starts {@code count} threads; thread {@code t} runs {@code readers.apply(t)} with seed {@code t}. */
  public static ReaderThreads start(int count, IntFunction<Reader> readers) {
    ReaderThreads r = new ReaderThreads();
    for (int t = 0; t < count; t++) {
      Reader reader = readers.apply(t);
      long seed = t;
      Thread thread = new Thread(() -> {
        Random random = new Random(seed);
        try {
          while (!r.stop.get()) {
            reader.readOnce(random);
            r.reads.incrementAndGet();
          }
        } catch (Throwable e) {
          r.failures.add(e);
        }
      });
      r.threads.add(thread);
      thread.start();
    }
    return r;
  }

  /** Whether a reader has failed (the writer may stop early). */
  public boolean failed() {
    return !failures.isEmpty();
  }

  /**
   * Stops and joins the readers; returns the reads they completed.
   *
   * @throws AssertionError carrying every reader's failure, if any failed
   */
  public long stopAndCheck() throws InterruptedException {
    stop.set(true);
    for (Thread thread : threads) {
      thread.join();
    }
    if (!failures.isEmpty()) {
      AssertionError error = new AssertionError("a reader failed", failures.peek());
      failures.forEach(error::addSuppressed);
      throw error;
    }
    return reads.get();
  }
}
