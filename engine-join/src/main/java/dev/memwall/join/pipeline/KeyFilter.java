package dev.memwall.join.pipeline;

import dev.memwall.core.bloom.RegisterBlockedBloomFilter;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.join.algorithm.OpenAddressingTable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Bloom filter a pipelined join may put in front of its hash table (some 40 times the filter's
 * size, so the filter stays in a nearer cache level), built only once probing shows it pays: the
 * probing threads first look the table up directly and count how many rows find a partner; the
 * first thread to have probed {@value #SAMPLE_CHUNKS} chunks decides for all. If fewer than half its
 * rows matched, it builds a register-blocked filter ({@link RegisterBlockedBloomFilter}) of the
 * table's keys (small enough to stay cached) and publishes it, and from then on only the hashes the filter
 * passes look the table up, so a selective join does not pay a memory miss per probe row; otherwise
 * no filter is built, and a join whose rows mostly match pays nothing for one.
 *
 * <p>Ownership: the filter, once built, is charged to the memory given and freed by {@link #close}.
 * Thread safety: {@link #current} and {@link #decide} may be called from any number of threads.
 */
final class KeyFilter implements AutoCloseable {
  /** The filter's bits per key (16 to 32 after rounding to a power of two): a false-positive rate of 1-2%. */
  static final int BITS_PER_KEY = 16;
  /** Chunks a thread probes before it decides. */
  static final int SAMPLE_CHUNKS = 16;

  private static final int UNDECIDED = 0;
  private static final int BUILDING = 1;
  private static final int DECIDED = 2;

  private final OpenAddressingTable table;
  private final long keys;
  private final EngineMemory memory;
  private final boolean possible;
  private final AtomicInteger state = new AtomicInteger(UNDECIDED);
  private volatile RegisterBlockedBloomFilter filter;

  /**
   * A filter for {@code table}, which holds the keys of {@code rows} build rows; possible when the
   * filter fits {@code cacheBytes}.
   */
  KeyFilter(OpenAddressingTable table, long rows, long cacheBytes, EngineMemory memory) {
    this.table = table;
    this.keys = rows;
    this.memory = memory;
    this.possible = rows > 0 && RegisterBlockedBloomFilter.bytesFor(rows, BITS_PER_KEY) <= cacheBytes;
    if (!possible) {
      state.set(DECIDED);
    }
  }

  /** The filter to test, or null: none yet, or none at all. */
  RegisterBlockedBloomFilter current() {
    return filter;
  }

  /** Whether probing threads should still count matches for {@link #decide}. */
  boolean undecided() {
    return state.get() == UNDECIDED;
  }

  /**
   * Decides, unless another thread did, from {@code probed} rows of which {@code matched} found a
   * partner: builds and publishes the filter if fewer than half matched.
   */
  void decide(long probed, long matched) {
    if (!state.compareAndSet(UNDECIDED, BUILDING)) {
      return;
    }
    try {
      if (matched * 2 < probed) {
        RegisterBlockedBloomFilter built = RegisterBlockedBloomFilter.create(memory, keys, BITS_PER_KEY);
        table.forEachKeyHash(built::add);
        filter = built;
      }
    } finally {
      state.set(DECIDED);
    }
  }

  /** Whether the decision was to filter (for tests and reports). */
  boolean built() {
    return filter != null;
  }

  /** Frees the filter, if one was built; call only when no thread probes any more. */
  @Override
  public void close() {
    RegisterBlockedBloomFilter built = filter;
    filter = null;
    if (built != null) {
      built.close();
    }
  }
}
