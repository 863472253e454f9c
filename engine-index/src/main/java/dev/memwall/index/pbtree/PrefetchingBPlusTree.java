package dev.memwall.index.pbtree;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Column;
import dev.memwall.index.IndexScan;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.UpdatableIndex;
import dev.memwall.index.node.LevelSizes;
import dev.memwall.index.node.NodePool;
import dev.memwall.index.node.NodeStamps;
import java.util.ConcurrentModificationException;
import java.util.Objects;

/**
 * A prefetching B+-tree (pB+-tree, seed 002 chapter 2) over off-heap memory: nodes of w cache
 * lines ({@link NodeFormat}: key count and all keys before the pointers) in one {@link NodePool},
 * keys {@code int32} or {@code int64}, values {@code int64} row ids, duplicate keys allowed.
 *
 * <p><b>Prefetching on the JVM.</b> Java has no prefetch instruction. "Fetching a whole node"
 * means loading one word of each of its w lines back to back before the binary search, so the
 * core overlaps the w misses instead of taking them one by one during the search; "prefetching a
 * leaf" during a range scan or a batched lookup likewise loads its lines ahead of use and folds
 * the loaded words into a value the code checks (so the JIT cannot drop the loads). With w = 1
 * and no jump pointers ({@link PbTreeConfig#oneLine}) this is a classic one-line-node B+-tree.
 *
 * <p><b>Operations</b> (an {@link UpdatableIndex}, built empty or by a bulkload).
 * {@link #bulkload} with a fill factor, {@link #search} (every row id of a key), {@link #insert},
 * lazy {@link #delete} (entries leave their leaf; leaves are never merged or freed, empty leaves
 * stay in the chain until the tree is rebuilt), {@link #scan range scans} returning batches,
 * prefetched through the jump-pointer array ({@link JumpPointers}) when the range is expected to
 * be long enough, and {@link #lookupBatch batched lookups} that interleave the traversals of a
 * group of keys so their misses overlap. {@link #checkInvariants()} walks the whole tree.
 *
 * <p><b>Where the code is.</b> This class holds the API, the tree's resources and its shape (root,
 * height, counts); each operation lives in a package-private class of its own, all reading the
 * nodes through {@code NodeAccess}: {@code BulkLoad}, {@code PointLookups} and
 * {@code BatchedLookup} (lookups without optimistic readers), {@code OptimisticReads},
 * {@code TreeWriter} (insert, splits, delete), {@code LeafScan} with {@code LeafPrefetcher} (range
 * scans), and {@code InvariantCheck}.
 *
 * <p><b>Ownership.</b> The nodes are off-heap, charged to the {@link EngineMemory} given at
 * creation; {@link #close()} frees them. Using a closed tree throws {@link IllegalStateException}.
 *
 * <p><b>Thread safety.</b> One writer at a time ({@link #insert}, {@link #delete}). By default no
 * reader may run concurrently with the writer; readers ({@link #search}, {@link #searchFirst},
 * {@link #contains}, {@link #lookupBatch}, scans) write nothing to the tree, so any number may run
 * concurrently while no writer does. An open {@link RangeScan} fails with
 * {@link ConcurrentModificationException} if the tree is modified under it.
 *
 * <p>With {@link PbTreeConfig#optimisticReaders()} every node has an optimistic version stamp
 * ({@link NodeStamps}, a seqlock: odd while the writer changes the node, release/acquire
 * ordered), and {@link #search}, {@link #searchFirst}, {@link #contains} and {@link #lookupBatch}
 * may run on any number of threads while one writer inserts and deletes: a reader reads a node's
 * stamp, the node, the next node's stamp, then re-checks the first stamp (lock coupling without
 * locks) and restarts from the root when anything changed ({@link #optimisticRetries()}). Each
 * such lookup sees the tree as it was at one instant during the call. The writer marks every node
 * it changes for the whole insert or delete, so a split is seen entirely or not at all; node
 * regions the pool grows out of stay mapped until {@link #close()}. In that mode batched lookups
 * run key by key, and range scans still need the writer to be stopped. Without the flag no
 * stamps exist and the read paths are unchanged (one branch on a final field).
 *
 * <p><b>Bad input.</b> A key outside the key type's range, unsorted bulkload input, a key column
 * of the wrong type or with nulls, or a fill factor outside (0, 1] is refused with
 * {@link IllegalArgumentException} before anything is changed or allocated.
 */
public final class PrefetchingBPlusTree implements UpdatableIndex {
  /** The most levels a tree may have. */
  static final int MAX_HEIGHT = 64;

  private final PbTreeConfig config;
  private final NodeFormat format;
  private final KeyType keyType;
  private final NodePool pool;
  final NodeAccess nodes;
  /** The external jump-pointer array; null unless {@link JumpPointers#EXTERNAL}. */
  final ExternalJumpPointers external;
  /** Per-node version stamps; null unless {@link PbTreeConfig#optimisticReaders()}. */
  private final NodeStamps stamps;
  /** The lookups run with optimistic readers; null without them. */
  private final OptimisticReads optimistic;
  /** Inserts and deletes: the single writer. */
  private final TreeWriter writer;

  // The tree's shape: set by create and BulkLoad before the tree is returned, changed only by the
  // writer, read by the lookups, scans and the invariant check.
  int root;
  int height;
  long size;
  int leafCount;
  /** Nodes per level (0: leaves), for range-size estimates. */
  final long[] levelNodes = new long[MAX_HEIGHT];
  /** Counts inserts and deletes, so an open scan notices a modification. */
  long modifications;
  /** {@code height << 32 | root}, published (volatile) for optimistic readers after each change. */
  volatile long rootWord;
  private boolean closed;

  PrefetchingBPlusTree(EngineMemory memory, PbTreeConfig config, long initialNodes, long expectedLeaves) {
    this.config = config;
    this.format = new NodeFormat(config.keyType(), config.widthLines());
    this.keyType = config.keyType();
    this.pool = NodePool.create(memory, format.nodeBytes(), Math.max(1, initialNodes), config.placement(),
        config.optimisticReaders());
    this.nodes = new NodeAccess(format, config.fetchWholeNode(), pool);
    ExternalJumpPointers jpa = null;
    NodeStamps st = null;
    try {
      if (config.jumpPointers() == JumpPointers.EXTERNAL) {
        jpa = new ExternalJumpPointers(memory, pool, config.chunkLines(), expectedLeaves, config.placement());
      }
      if (config.optimisticReaders()) {
        st = new NodeStamps(memory, Math.max(1, initialNodes), config.placement());
      }
    } catch (RuntimeException e) {
      if (jpa != null) {
        jpa.close();
      }
      pool.close();
      throw e;
    }
    this.external = jpa;
    this.stamps = st;
    this.optimistic = st == null ? null : new OptimisticReads(this, st);
    this.writer = new TreeWriter(this, st);
  }

  /** An empty tree: one empty leaf as its root. */
  public static PrefetchingBPlusTree create(EngineMemory memory, PbTreeConfig config) {
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(config, "config");
    PrefetchingBPlusTree tree = new PrefetchingBPlusTree(memory, config, 64, 1);
    int leaf = tree.pool.allocate();
    tree.nodes.initLeaf(tree.pool.segment(), leaf, -1);
    tree.root = leaf;
    tree.height = 1;
    tree.publishRoot();
    tree.leafCount = 1;
    tree.levelNodes[0] = 1;
    if (tree.external != null) {
      tree.external.single(leaf);
    }
    return tree;
  }

  /**
   * A tree bulkloaded from an Arrow key column, each row's index as its row id (see
   * {@link SortedEntries#fromColumn}).
   */
  public static PrefetchingBPlusTree bulkload(EngineMemory memory, PbTreeConfig config, Column keys,
      double fillFactor) {
    LevelSizes.checkFill(fillFactor);
    return bulkload(memory, config, SortedEntries.fromColumn(keys, config.keyType()), fillFactor);
  }

  /**
   * A tree built bottom-up from sorted entries: leaves hold {@code round(fill * L)} entries and
   * non-leaves {@code round(fill * fanout)} children (spread evenly, so no node is left nearly
   * empty), each level allocated contiguously; the external jump-pointer array is filled at most
   * {@code min(fill, 80%)}.
   *
   * @throws IllegalArgumentException if the entries are unsorted or a key does not fit the key
   *     type, or {@code fillFactor} is not in (0, 1]; nothing is allocated then
   */
  public static PrefetchingBPlusTree bulkload(EngineMemory memory, PbTreeConfig config, SortedEntries entries,
      double fillFactor) {
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(entries, "entries");
    LevelSizes.checkFill(fillFactor);
    entries.validate(config.keyType());
    return BulkLoad.load(memory, config, entries, fillFactor);
  }

  // ---- search -----------------------------------------------------------------------------

  /**
   * Appends every row id stored under {@code key} to {@code out} (in leaf order: bulkload order,
   * then insertion order) and returns how many.
   *
   * @throws IllegalArgumentException if {@code key} does not fit the key type
   */
  @Override
  public int search(long key, RowIds out) {
    checkOpen();
    keyType.check(key);
    if (optimistic != null) {
      return optimistic.search(key, out, Integer.MAX_VALUE);
    }
    return PointLookups.search(this, key, out);
  }

  /**
   * The row id of the first entry under {@code key}, or {@code absent} if there is none.
   *
   * @throws IllegalArgumentException if {@code key} does not fit the key type
   */
  @Override
  public long searchFirst(long key, long absent) {
    checkOpen();
    keyType.check(key);
    if (optimistic != null) {
      return optimistic.searchFirst(key, absent);
    }
    return PointLookups.searchFirst(this, key, absent);
  }

  /** Whether any entry has {@code key}. */
  @Override
  public boolean contains(long key) {
    checkOpen();
    keyType.check(key);
    if (optimistic != null) {
      return optimistic.search(key, null, 1) > 0;
    }
    return PointLookups.contains(this, key);
  }

  /** Optimistic reads that failed validation and were retried, since the tree was created. */
  public long optimisticRetries() {
    return optimistic == null ? 0 : optimistic.retries();
  }

  // ---- batched lookups --------------------------------------------------------------------

  /**
   * Looks up {@code keys[0 .. count)} and appends every row id of each to {@code out}, which is
   * cleared first; the row ids of key {@code i} are {@code out[offsets[i] .. offsets[i + 1])}.
   *
   * <p>Keys are processed in groups of {@link PbTreeConfig#batchGroup()}: at each level the nodes
   * of the whole group are loaded back to back (every line of each), then each key's binary search
   * runs on cached nodes, so the group's misses overlap instead of following each other.
   *
   * @throws IllegalArgumentException if {@code offsets} is shorter than {@code count + 1}, or any
   *     key does not fit the key type (checked before any lookup)
   */
  @Override
  public void lookupBatch(long[] keys, int count, int[] offsets, RowIds out) {
    checkOpen();
    Objects.checkFromIndexSize(0, count, keys.length);
    if (offsets.length < count + 1) {
      throw new IllegalArgumentException("offsets needs " + (count + 1) + " slots, has " + offsets.length);
    }
    for (int i = 0; i < count; i++) {
      keyType.check(keys[i]);
    }
    out.clear();
    if (optimistic != null) { // key by key, each lookup validated on its own
      optimistic.lookupBatch(keys, count, offsets, out);
    } else {
      BatchedLookup.lookup(this, keys, count, offsets, out);
    }
  }

  // ---- insert and delete ------------------------------------------------------------------

  /**
   * Adds the entry {@code (key, rowId)}; an entry with an equal key goes after the existing ones.
   *
   * @throws IllegalArgumentException if {@code key} does not fit the key type; the tree is unchanged
   */
  @Override
  public void insert(long key, long rowId) {
    checkOpen();
    keyType.check(key);
    writer.insert(key, rowId);
  }

  /**
   * Removes one entry {@code (key, rowId)} if present (lazy deletion: the leaf may become empty and
   * stays in the tree).
   *
   * @return whether an entry was removed
   * @throws IllegalArgumentException if {@code key} does not fit the key type
   */
  @Override
  public boolean delete(long key, long rowId) {
    checkOpen();
    keyType.check(key);
    return writer.delete(key, rowId);
  }

  // ---- range scans ------------------------------------------------------------------------

  /**
   * A scan of {@code lo <= key <= hi} that prefetches as {@link ScanPrefetch#AUTO} decides.
   *
   * @throws IllegalArgumentException if a bound does not fit the key type
   */
  @Override
  public RangeScan scan(long lo, long hi) {
    return scan(lo, hi, ScanPrefetch.AUTO);
  }

  /**
   * A scan of the entries with {@code lo <= key <= hi} in key order; both end keys are searched
   * first, which bounds the prefetching and estimates the range's size.
   *
   * @throws IllegalArgumentException if a bound does not fit the key type
   */
  public RangeScan scan(long lo, long hi, ScanPrefetch prefetch) {
    checkOpen();
    keyType.check(lo);
    keyType.check(hi);
    return new RangeScan(new LeafScan(this, lo, hi, Objects.requireNonNull(prefetch, "prefetch")));
  }

  /**
   * An open range scan; read it with {@link #next}. Invalid once the tree is modified or closed.
   * Not thread-safe.
   */
  public static final class RangeScan implements IndexScan {
    private final LeafScan scan;

    private RangeScan(LeafScan scan) {
      this.scan = scan;
    }

    /** Whether the scan prefetches leaves through the jump-pointer array. */
    public boolean prefetching() {
      return scan.prefetching();
    }

    /** The range's size as estimated from the search paths of its end keys. */
    public long estimatedEntries() {
      return scan.estimatedEntries();
    }

    /** {@link #next(long[], long[])} without keys. */
    @Override
    public int next(long[] rowIds) {
      return scan.next(null, rowIds);
    }

    /**
     * Fills {@code rowIds} (and {@code keys}, when not null, with the matching keys) with the next
     * entries of the range, up to the array's length.
     *
     * @return how many were written; 0 once the range is exhausted
     * @throws ConcurrentModificationException if the tree was modified since the scan began
     * @throws IllegalArgumentException if {@code keys} is shorter than {@code rowIds}
     */
    @Override
    public int next(long[] keys, long[] rowIds) {
      return scan.next(keys, rowIds);
    }
  }

  // ---- introspection ----------------------------------------------------------------------

  @Override
  public KeyType keyType() {
    return keyType;
  }

  /** Entries in the tree. */
  @Override
  public long size() {
    return size;
  }

  /** Levels, leaves included (1: the root is a leaf). */
  @Override
  public int height() {
    return height;
  }

  /** Leaves in the chain, empty ones included. */
  public int leafCount() {
    return leafCount;
  }

  public PbTreeConfig config() {
    return config;
  }

  public NodeFormat nodeFormat() {
    return format;
  }

  /**
   * Off-heap bytes held by the node region, the jump-pointer array and the version stamps (with
   * optimistic readers, regions the pool grew out of stay charged to the budget until close).
   */
  public long reservedBytes() {
    return pool.reservedBytes() + (external == null ? 0 : external.reservedBytes())
        + (stamps == null ? 0 : stamps.reservedBytes());
  }

  /** Chunk splits of the external jump-pointer array so far (0 without one). */
  public long jumpPointerChunkSplits() {
    return external == null ? 0 : external.splits();
  }

  /**
   * Walks the whole tree and checks its invariants: every node's level is its depth below the
   * root's (all leaves at the same depth), keys ascend within each node and lie within the bounds
   * its parent's separators give, key counts lie within capacity (non-leaves have at least one
   * child, the root at least two), the leaf chain and each level's sibling chain list the nodes in
   * key order and end, the external jump-pointer array lists the leaves in order, and the entry
   * and leaf counts match.
   *
   * @throws IllegalStateException describing the first violation
   */
  @Override
  public void checkInvariants() {
    checkOpen();
    new InvariantCheck(this).run();
  }

  /** Frees the nodes and the jump-pointer array; idempotent. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      pool.close();
      if (stamps != null) {
        stamps.close();
      }
      if (external != null) {
        external.close();
      }
    }
  }

  /**
   * Throws if the tree is closed.
   *
   * @throws IllegalStateException once {@link #close()} has run
   */
  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("tree is closed");
    }
  }

  /** Publishes {@link #root} and {@link #height} to optimistic readers as one word. */
  void publishRoot() {
    rootWord = ((long) height << 32) | (root & 0xFFFF_FFFFL);
  }

  @Override
  public String toString() {
    return "PrefetchingBPlusTree[" + format + ", " + size + " entries, height " + height + ", " + leafCount
        + " leaves, " + config.jumpPointers() + " jump pointers]";
  }
}
