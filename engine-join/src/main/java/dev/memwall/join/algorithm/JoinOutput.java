package dev.memwall.join.algorithm;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.join.common.PairChunk;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Where a join algorithm puts its result: counted only (nothing materialized), or written into an
 * off-heap chunk of pairs that is handed to a consumer each time it fills, then reused.
 *
 * <p>{@link #emit} is the hot path: a final method on a final class, one predictable branch, no
 * allocation; the consumer (possibly megamorphic) is called once per chunk.
 *
 * <p>Ownership: the chunk buffer is charged to the memory given and freed by {@link #close}.
 * Thread safety: one thread per output; parallel joins give each worker its own.
 */
public final class JoinOutput implements AutoCloseable {
  /** Pairs per chunk by default: 512 KiB of row ids. */
  public static final int DEFAULT_CHUNK_PAIRS = 1 << 16;
  private static final ValueLayout.OfInt ROW = ValueLayout.JAVA_INT;

  private final boolean countOnly;
  private final EngineMemory memory;
  private final Object consumerLock;
  private final Consumer<PairChunk> consumer;
  private final OffHeapBuffer buffer;
  private final MemorySegment lefts;
  private final MemorySegment rights;
  private final int capacity;
  private int fill;
  private long emitted;

  private JoinOutput(EngineMemory memory, int capacity, Consumer<PairChunk> consumer, Object consumerLock) {
    this.countOnly = consumer == null;
    this.memory = memory;
    this.consumerLock = consumerLock;
    this.consumer = consumer;
    this.capacity = capacity;
    if (countOnly) {
      this.buffer = null;
      this.lefts = null;
      this.rights = null;
    } else {
      this.buffer = memory.allocate(2L * capacity * Integer.BYTES);
      this.lefts = buffer.segment().asSlice(0, (long) capacity * Integer.BYTES);
      this.rights = buffer.segment().asSlice((long) capacity * Integer.BYTES, (long) capacity * Integer.BYTES);
    }
  }

  /** An output that only counts pairs. */
  public static JoinOutput counting() {
    return new JoinOutput(null, 0, null, new Object());
  }

  /** An output that hands chunks of up to {@code chunkPairs} pairs to {@code consumer}. */
  public static JoinOutput streaming(EngineMemory memory, int chunkPairs, Consumer<PairChunk> consumer) {
    if (chunkPairs < 1) {
      throw new IllegalArgumentException("chunks need at least one pair, got " + chunkPairs);
    }
    return new JoinOutput(memory, chunkPairs, consumer, new Object());
  }

  /** Bytes a streaming output of {@code chunkPairs} pairs holds. */
  public static long bytesFor(int chunkPairs) {
    return 2L * chunkPairs * Integer.BYTES;
  }

  /** Reports one result pair. */
  public void emit(int left, int right) {
    emitted++;
    if (countOnly) {
      return;
    }
    lefts.setAtIndex(ROW, fill, left);
    rights.setAtIndex(ROW, fill, right);
    if (++fill == capacity) {
      flush();
    }
  }

  /**
   * A sibling output for another worker thread: it counts on its own and hands its chunks to the
   * same consumer, one chunk at a time (calls of the consumer by siblings never overlap).
   */
  public JoinOutput fork() {
    return new JoinOutput(memory, capacity, consumer, consumerLock);
  }

  /**
   * Runs {@code work} on {@code workers} threads, the calling one with this output and each other
   * with a {@linkplain #fork fork} of it; each output is flushed when its work ends, and the forks'
   * counts are absorbed into this one once all have finished (a failure is rethrown after all have
   * stopped, the forks closed either way).
   */
  public void inParallel(int workers, Consumer<JoinOutput> work) {
    List<JoinOutput> forks = new ArrayList<>();
    try {
      List<Runnable> tasks = new ArrayList<>();
      for (int t = 0; t < workers; t++) {
        JoinOutput mine = t == 0 ? this : fork();
        if (t > 0) {
          forks.add(mine);
        }
        tasks.add(() -> {
          work.accept(mine);
          mine.flush();
        });
      }
      Workers.runAll("memwall-join", tasks);
      forks.forEach(this::absorb);
    } finally {
      forks.forEach(JoinOutput::close);
    }
  }

  /** Hands the pairs not yet delivered to the consumer. */
  public void flush() {
    ExecutionControl.checkpoint(); // a full buffer of pairs: a probe's natural step
    if (fill > 0) {
      int n = fill;
      fill = 0;
      synchronized (consumerLock) {
        consumer.accept(new PairChunk(lefts, rights, n));
      }
    }
  }

  /** Adds what a {@link #fork()}ed sibling emitted (after it was flushed) to this output's count. */
  public void absorb(JoinOutput sibling) {
    emitted += sibling.emitted;
  }

  /** Pairs emitted so far. */
  public long emitted() {
    return emitted;
  }

  public boolean countOnly() {
    return countOnly;
  }

  @Override
  public void close() {
    if (buffer != null) {
      buffer.close();
    }
  }
}
