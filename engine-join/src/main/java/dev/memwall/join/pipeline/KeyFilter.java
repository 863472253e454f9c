package dev.memwall.join.pipeline;

import dev.memwall.core.bloom.RegisterBlockedBloomFilter;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.join.algorithm.BuildTable;
import dev.memwall.join.algorithm.OpenAddressingTable;
import dev.memwall.join.keys.KeyColumns;
import dev.memwall.join.keys.KeyShape;
import java.util.LongSummaryStatistics;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The filter a pipelined join may put in front of its hash table, built only once probing shows it
 * pays: the probing threads first look the table up directly and count how many rows find a
 * partner; the first thread to have probed {@value #SAMPLE_CHUNKS} chunks decides for all. If fewer
 * than half its rows matched, it builds a filter of the table's keys small enough to stay cached
 * and publishes it, and from then on only the rows the filter passes look the table up, so a
 * selective join does not pay a memory miss per probe row; otherwise no filter is built, and a join
 * whose rows mostly match pays nothing for one.
 *
 * <p>The filter is exact where it can be: a key of one integral column whose range's bitmap fits the
 * cache gets a {@link KeyBitmap} of its range, tested on the key before hashing; any other key a
 * register-blocked Bloom filter ({@link RegisterBlockedBloomFilter}) of the table's hashes, some 40
 * times smaller than the table. The bitmap is taken however sparse the build keys are in their
 * range: it needs no hash, has no false positives, and a probe side clustered on the key (lineitem
 * on its order key) reads it in order, where the Bloom filter's hashed probes land anywhere. So where
 * the sampled probe keys came in ascending order (nine steps in ten), the bitmap need not fit the
 * cache, only be no larger than the table it fronts: the hardware prefetches a bitmap read in order,
 * while a Bloom filter of the same keys would miss the cache on most probes. Being a heap array, it
 * then also stays within a sixteenth of the JVM's heap limit, which a host may have set low.
 *
 * <p>Ownership: the filter, once built, is charged to the memory given and freed by {@link #close}.
 * Thread safety: {@link #bloom}, {@link #bitmap} and {@link #decide} may be called from any number
 * of threads.
 */
final class KeyFilter implements AutoCloseable {
  /** The filter's bits per key (16 to 32 after rounding to a power of two): a false-positive rate of 1-2%. */
  static final int BITS_PER_KEY = 16;
  /** Chunks a thread probes before it decides. */
  static final int SAMPLE_CHUNKS = 16;
  /** The share of ascending steps between consecutive sampled probe keys that counts as ordered. */
  static final double ORDERED_SHARE = 0.9;

  /** What {@link #decide} built. */
  enum Kind {
    NONE,
    BLOOM,
    BITMAP
  }

  private static final int UNDECIDED = 0;
  private static final int BUILDING = 1;
  private static final int DECIDED = 2;

  private final BuildTable table;
  private final KeyColumns buildKeys;
  private final long keys;
  private final long cacheBytes;
  private final EngineMemory memory;
  private final AtomicInteger state = new AtomicInteger(UNDECIDED);
  private volatile RegisterBlockedBloomFilter bloom;
  private volatile KeyBitmap bitmap;

  /**
   * A filter for {@code table}, which holds the keys {@code buildKeys}; possible when they are one
   * integral column (whose range is then known only once {@link #decide} reads them), or when the
   * table is a hash table and a Bloom filter of its hashes fits {@code cacheBytes}.
   */
  KeyFilter(BuildTable table, KeyColumns buildKeys, long cacheBytes, EngineMemory memory) {
    this.table = table;
    this.buildKeys = buildKeys;
    this.keys = buildKeys.rowCount();
    this.cacheBytes = cacheBytes;
    this.memory = memory;
    boolean possible = keys > 0 && (integral() || bloomFits());
    if (!possible) {
      state.set(DECIDED);
    }
  }

  /** Whether a Bloom filter of the table's hashes is possible: the table has hashes, and the filter fits the cache. */
  private boolean bloomFits() {
    return table instanceof OpenAddressingTable && RegisterBlockedBloomFilter.bytesFor(keys, BITS_PER_KEY) <= cacheBytes;
  }

  private boolean integral() {
    return buildKeys.shape() == KeyShape.INT32 || buildKeys.shape() == KeyShape.INT64;
  }

  /** The Bloom filter of the keys' hashes to test, or null: none yet, or none at all. */
  RegisterBlockedBloomFilter bloom() {
    return bloom;
  }

  /** The exact set of the keys to test the keys themselves against, or null: none yet, or none at all. */
  KeyBitmap bitmap() {
    return bitmap;
  }

  /** Whether probing threads should still count matches for {@link #decide}. */
  boolean undecided() {
    return state.get() == UNDECIDED;
  }

  /**
   * Decides, unless another thread did, from {@code probed} rows of which {@code matched} found a
   * partner: builds and publishes a filter if fewer than half matched, the bitmap where it is
   * possible and fits the cache (or, for probe keys that came in order, the table and a sixteenth of
   * the heap limit), else the Bloom filter where that fits.
   *
   * @param ascending of the {@code steps} between consecutive probe keys sampled (each chunk's keys
   *     in row order, for a key of one integral column; 0 and 0 otherwise), how many did not descend
   */
  void decide(long probed, long matched, long ascending, long steps) {
    if (!state.compareAndSet(UNDECIDED, BUILDING)) {
      return;
    }
    try {
      if (matched * 2 < probed) {
        boolean ordered = steps > 0 && ascending >= ORDERED_SHARE * steps;
        long orderedLimit = Math.min(table.bytes(), Runtime.getRuntime().maxMemory() / 16);
        bitmap = integral() ? buildBitmap(ordered ? Math.max(cacheBytes, orderedLimit) : cacheBytes) : null;
        if (bitmap == null && bloomFits()) {
          RegisterBlockedBloomFilter built = RegisterBlockedBloomFilter.create(memory, keys, BITS_PER_KEY);
          ((OpenAddressingTable) table).forEachKeyHash(built::add);
          bloom = built;
        }
      }
    } finally {
      state.set(DECIDED);
    }
  }

  /**
   * The bitmap of the keys, or null when they have none (all null) or the bitmap of their range
   * would take more than {@code limitBytes}.
   */
  private KeyBitmap buildBitmap(long limitBytes) {
    LongSummaryStatistics range = new LongSummaryStatistics(); // no keys: min > max, so no bitmap
    buildKeys.forEachKey(range);
    long bytes = KeyBitmap.bytesFor(range.getMin(), range.getMax());
    if (bytes < 0 || bytes > limitBytes) {
      return null;
    }
    KeyBitmap built = KeyBitmap.create(memory, range.getMin(), range.getMax());
    buildKeys.forEachKey(built::add);
    return built;
  }

  /** What the decision built (for tests and reports). */
  Kind kind() {
    return bitmap != null ? Kind.BITMAP : bloom != null ? Kind.BLOOM : Kind.NONE;
  }

  /** Frees the filter, if one was built; call only when no thread probes any more. */
  @Override
  public void close() {
    RegisterBlockedBloomFilter builtBloom = bloom;
    KeyBitmap builtBitmap = bitmap;
    bloom = null;
    bitmap = null;
    try {
      if (builtBloom != null) {
        builtBloom.close();
      }
    } finally {
      if (builtBitmap != null) {
        builtBitmap.close();
      }
    }
  }
}
