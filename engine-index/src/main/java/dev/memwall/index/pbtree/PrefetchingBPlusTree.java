package dev.memwall.index.pbtree;

import static dev.memwall.index.pbtree.NodeLayout.INNER_KEYS;
import static dev.memwall.index.pbtree.NodeLayout.KEYNUM;
import static dev.memwall.index.pbtree.NodeLayout.LEAF_KEYS;
import static dev.memwall.index.pbtree.NodeLayout.LEVEL;
import static dev.memwall.index.pbtree.NodeLayout.NEXT;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Column;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.layout.NodeFetch;
import dev.memwall.index.layout.NodeKeys;
import dev.memwall.index.layout.NodePool;
import dev.memwall.index.layout.NodeStamps;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ConcurrentModificationException;
import java.util.Objects;

/**
 * A prefetching B+-tree (pB+-tree, seed 002 chapter 2) over off-heap memory: nodes of w cache
 * lines ({@link NodeLayout}: key count and all keys before the pointers) in one {@link NodePool},
 * keys {@code int32} or {@code int64}, values {@code int64} row ids, duplicate keys allowed.
 *
 * <p><b>Prefetching on the JVM.</b> Java has no prefetch instruction. "Fetching a whole node"
 * means loading one word of each of its w lines back to back before the binary search, so the
 * core overlaps the w misses instead of taking them one by one during the search; "prefetching a
 * leaf" during a range scan or a batched lookup likewise loads its lines ahead of use and folds
 * the loaded words into a value the code checks (so the JIT cannot drop the loads). With w = 1
 * and no jump pointers ({@link PbTreeConfig#oneLine}) this is a classic one-line-node B+-tree.
 *
 * <p><b>Operations.</b> {@link #bulkload} with a fill factor, {@link #search} (every row id of a
 * key), {@link #insert}, lazy {@link #delete} (entries leave their leaf; leaves are never merged
 * or freed, empty leaves stay in the chain until the tree is rebuilt), {@link #scan range scans}
 * returning batches, prefetched through the jump-pointer array ({@link JumpPointers}) when the
 * range is expected to be long enough, and {@link #lookupBatch batched lookups} that interleave
 * the traversals of a group of keys so their misses overlap. {@link #checkInvariants()} walks the
 * whole tree.
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
public final class PrefetchingBPlusTree implements AutoCloseable {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
  private static final int LINE = NodePool.LINE_BYTES;
  /** The most levels a tree may have. */
  static final int MAX_HEIGHT = 64;

  private final PbTreeConfig config;
  private final NodeLayout layout;
  private final KeyType keyType;
  private final boolean int64;
  private final boolean fetch;
  private final int lines;
  private final int innerKeys;
  private final long childOffset;
  private final int leafEntries;
  private final long rowIdOffset;
  private final long nodeBytes;
  private final NodePool pool;
  final NodeAccess nodes;
  final ExternalJumpPointers external;
  /** Per-node version stamps; null unless {@link PbTreeConfig#optimisticReaders()}. */
  final NodeStamps stamps;
  /** The lookups run with optimistic readers; null without them. */
  private final OptimisticReads optimistic;
  /** {@code height << 32 | root}, published (volatile) for optimistic readers after each change. */
  volatile long rootWord;

  int root;
  int height;
  long size;
  int leafCount;
  /** Nodes per level (0: leaves), for range-size estimates. */
  final long[] levelNodes = new long[MAX_HEIGHT];
  long modifications;
  private boolean closed;

  /** Inserts and deletes: the single writer. */
  private final TreeWriter writer;

  PrefetchingBPlusTree(EngineMemory memory, PbTreeConfig config, long initialNodes, long expectedLeaves) {
    this.config = config;
    this.layout = new NodeLayout(config.keyType(), config.widthLines());
    this.keyType = config.keyType();
    this.int64 = keyType == KeyType.INT64;
    this.lines = layout.widthLines();
    this.nodeBytes = layout.nodeBytes();
    this.fetch = config.fetchWholeNode() && lines > 1;
    this.innerKeys = layout.innerKeys();
    this.childOffset = layout.childOffset();
    this.leafEntries = layout.leafEntries();
    this.rowIdOffset = layout.rowIdOffset();
    this.pool = NodePool.create(memory, layout.nodeBytes(), Math.max(1, initialNodes), config.placement(),
        config.optimisticReaders());
    this.nodes = new NodeAccess(layout, config.fetchWholeNode(), pool);
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
    BulkLoad.checkFill(fillFactor);
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
    BulkLoad.checkFill(fillFactor);
    entries.validate(config.keyType());
    return BulkLoad.load(memory, config, entries, fillFactor);
  }

  // ---- key access -------------------------------------------------------------------------

  private long leafKey(MemorySegment s, long off, int i) {
    return NodeKeys.get(s, off + LEAF_KEYS, i, int64);
  }

  private long innerKey(MemorySegment s, long off, int i) {
    return NodeKeys.get(s, off + INNER_KEYS, i, int64);
  }

  private void setLeafKey(MemorySegment s, long off, int i, long key) {
    NodeKeys.set(s, off + LEAF_KEYS, i, key, int64);
  }

  private void setInnerKey(MemorySegment s, long off, int i, long key) {
    NodeKeys.set(s, off + INNER_KEYS, i, key, int64);
  }

  /** {@link NodeKeys#bound} over this tree's keys. */
  private int bound(MemorySegment s, long keysOff, int n, long key, boolean upper) {
    return NodeKeys.bound(s, keysOff, n, key, upper, int64);
  }

  /** Loads one word of each line of the node but the first, back to back: the whole-node fetch. */
  private long touchRest(MemorySegment s, long off) {
    return NodeFetch.touchRest(s, off, lines);
  }

  /** Loads one word of every line of the node: prefetching it ahead of use. */
  private long touchAll(MemorySegment s, long off) {
    return NodeFetch.touchAll(s, off, lines);
  }

  private static void consume(long folded) {
    NodeFetch.consume(folded);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("tree is closed");
    }
  }

  // ---- search -----------------------------------------------------------------------------

  /**
   * Appends every row id stored under {@code key} to {@code out} (in leaf order: bulkload order,
   * then insertion order) and returns how many.
   *
   * @throws IllegalArgumentException if {@code key} does not fit the key type
   */
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
  public long searchFirst(long key, long absent) {
    checkOpen();
    keyType.check(key);
    if (optimistic != null) {
      return optimistic.searchFirst(key, absent);
    }
    return PointLookups.searchFirst(this, key, absent);
  }

  /** Whether any entry has {@code key}. */
  public boolean contains(long key) {
    checkOpen();
    keyType.check(key);
    if (optimistic != null) {
      return optimistic.search(key, null, 1) > 0;
    }
    return PointLookups.contains(this, key);
  }

  // ---- optimistic reads (PbTreeConfig.optimisticReaders) ---------------------------------------

  /** Optimistic reads that failed validation and were retried, since the tree was created. */
  public long optimisticRetries() {
    return optimistic == null ? 0 : optimistic.retries();
  }

  /** Publishes {@link #root} and {@link #height} to optimistic readers as one word. */
  void publishRoot() {
    rootWord = ((long) height << 32) | (root & 0xFFFF_FFFFL);
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

  // ---- insert -----------------------------------------------------------------------------

  /**
   * Adds the entry {@code (key, rowId)}; an entry with an equal key goes after the existing ones.
   *
   * @throws IllegalArgumentException if {@code key} does not fit the key type; the tree is unchanged
   */
  public void insert(long key, long rowId) {
    checkOpen();
    keyType.check(key);
    writer.insert(key, rowId);
  }

  // ---- delete -----------------------------------------------------------------------------

  /**
   * Removes one entry {@code (key, rowId)} if present (lazy deletion: the leaf may become empty and
   * stays in the tree).
   *
   * @return whether an entry was removed
   * @throws IllegalArgumentException if {@code key} does not fit the key type
   */
  public boolean delete(long key, long rowId) {
    checkOpen();
    keyType.check(key);
    return writer.delete(key, rowId);
  }

  // ---- range scans ------------------------------------------------------------------------

  /** A scan of {@code lo <= key <= hi} that prefetches as {@link ScanPrefetch#AUTO} decides. */
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
    return new RangeScan(lo, hi, Objects.requireNonNull(prefetch, "prefetch"));
  }

  /**
   * An open range scan; read it with {@link #next}. Invalid once the tree is modified or closed.
   * Not thread-safe.
   */
  public final class RangeScan {
    private final long hi;
    private final long expectedModifications;
    private final MemorySegment s;
    private final boolean prefetching;
    private final long estimatedEntries;
    private long off;
    private int n;
    private int p;
    private boolean done;
    private long sink;
    // the prefetch cursor: the last leaf prefetched, as (node, slot) in the leaf parents or (chunk, slot)
    private int cursorNode;
    private int cursorSlot;
    private final int endLeaf;
    private boolean cursorDone;
    /** Leaves prefetched beyond the current one and not yet visited. */
    private int ahead;
    private final MemorySegment chunks;

    private RangeScan(long lo, long hi, ScanPrefetch mode) {
      this.hi = hi;
      this.expectedModifications = modifications;
      this.s = pool.segment();
      this.chunks = external == null ? null : external.segment();
      int[] loSlots = new int[height];
      int[] hiSlots = new int[height];
      int loParent = -1;
      int node = root;
      for (int level = height - 1; level > 0; level--) {
        long nodeOff = pool.offset(node);
        if (fetch) {
          sink += touchRest(s, nodeOff);
        }
        int keys = s.get(SHORT, nodeOff + KEYNUM);
        int j = bound(s, nodeOff + INNER_KEYS, keys, lo, false);
        loSlots[level] = j;
        if (level == 1) {
          loParent = node;
        }
        node = s.get(INT, nodeOff + childOffset + 4L * j);
      }
      int startLeaf = node;
      node = root;
      for (int level = height - 1; level > 0; level--) {
        long nodeOff = pool.offset(node);
        int keys = s.get(SHORT, nodeOff + KEYNUM);
        int j = bound(s, nodeOff + INNER_KEYS, keys, hi, true);
        hiSlots[level] = j;
        node = s.get(INT, nodeOff + childOffset + 4L * j);
      }
      this.endLeaf = node;
      this.estimatedEntries = lo > hi ? 0 : estimate(loSlots, hiSlots);
      this.off = pool.offset(startLeaf);
      this.n = s.get(SHORT, off + KEYNUM);
      this.p = bound(s, off + LEAF_KEYS, n, lo, false);
      this.done = lo > hi;
      boolean want = switch (mode) {
        case NEVER -> false;
        case ALWAYS -> true;
        case AUTO -> estimatedEntries >= config.minPrefetchEntries();
      };
      this.prefetching = !done && want && height > 1 && config.jumpPointers() != JumpPointers.NONE;
      if (prefetching) {
        if (config.jumpPointers() == JumpPointers.INTERNAL) {
          cursorNode = loParent;
          cursorSlot = loSlots[1];
        } else {
          long position = external.locate(startLeaf);
          cursorNode = ExternalJumpPointers.chunkOf(position);
          cursorSlot = ExternalJumpPointers.slotOf(position);
          int nextChunk = chunks.get(INT, external.chunkOffset(cursorNode) + ExternalJumpPointers.NEXT);
          if (nextChunk >= 0) {
            sink += touchChunk(nextChunk);
          }
        }
        cursorDone = startLeaf == endLeaf;
        prefetchGroup();
      }
    }

    /**
     * Entries between the two search paths: at each level, the slot difference times the mean
     * number of leaves under a node of the level below.
     */
    private long estimate(int[] loSlots, int[] hiSlots) {
      if (height == 1 || leafCount <= 1) {
        return size;
      }
      double leaves = 0;
      for (int level = 1; level < height; level++) {
        leaves += (hiSlots[level] - loSlots[level]) * ((double) leafCount / levelNodes[level - 1]);
      }
      double perLeaf = (double) size / leafCount;
      return (long) Math.max(0, (leaves + 1) * perLeaf);
    }

    private long touchChunk(int chunk) {
      long chunkOff = external.chunkOffset(chunk);
      long folded = 0;
      for (int l = 0; l < config.chunkLines(); l++) {
        folded += chunks.get(LONG, chunkOff + (long) l * LINE);
      }
      return folded;
    }

    /**
     * Loads the next d leaves (all their lines) back to back. The JVM has no non-blocking prefetch:
     * a load issued d leaves ahead, one per leaf, still blocks retirement once it reaches the head
     * of the reorder buffer, so one such load per leaf overlaps little. Issuing a group of them in
     * a tight loop lets the core overlap their misses, as group prefetching does (seed 002 ch. 4).
     */
    private void prefetchGroup() {
      for (int i = 0; i < config.prefetchDistance() && !cursorDone; i++) {
        prefetchNext();
        ahead++;
      }
    }

    /** Moves the cursor to the next leaf and loads all its lines; stops after the end leaf. */
    private void prefetchNext() {
      int leaf;
      if (config.jumpPointers() == JumpPointers.INTERNAL) {
        long parentOff = pool.offset(cursorNode);
        if (++cursorSlot > s.get(SHORT, parentOff + KEYNUM)) {
          cursorNode = s.get(INT, parentOff + NEXT);
          if (cursorNode < 0) {
            cursorDone = true;
            return;
          }
          cursorSlot = 0;
          parentOff = pool.offset(cursorNode);
          int following = s.get(INT, parentOff + NEXT);
          if (following >= 0) {
            sink += touchAll(s, pool.offset(following));
          }
        }
        leaf = s.get(INT, parentOff + childOffset + 4L * cursorSlot);
      } else {
        int slots = external.slots();
        while (true) {
          if (++cursorSlot >= slots) {
            cursorNode = chunks.get(INT, external.chunkOffset(cursorNode) + ExternalJumpPointers.NEXT);
            if (cursorNode < 0) {
              cursorDone = true;
              return;
            }
            cursorSlot = 0;
            int following = chunks.get(INT, external.chunkOffset(cursorNode) + ExternalJumpPointers.NEXT);
            if (following >= 0) {
              sink += touchChunk(following);
            }
          }
          int value = chunks.get(INT, external.chunkOffset(cursorNode) + ExternalJumpPointers.SLOTS + 4L * cursorSlot);
          if (value != 0) {
            leaf = value - 1;
            break;
          }
        }
      }
      sink += touchAll(s, pool.offset(leaf));
      if (leaf == endLeaf) {
        cursorDone = true;
      }
    }

    /** Whether the scan prefetches leaves through the jump-pointer array. */
    public boolean prefetching() {
      return prefetching;
    }

    /** The range's size as estimated from the search paths of its end keys. */
    public long estimatedEntries() {
      return estimatedEntries;
    }

    /** {@link #next(long[], long[])} without keys. */
    public int next(long[] rowIds) {
      return next(null, rowIds);
    }

    /**
     * Fills {@code rowIds} (and {@code keys}, when not null, with the matching keys) with the next
     * entries of the range, up to the array's length.
     *
     * @return how many were written; 0 once the range is exhausted
     * @throws ConcurrentModificationException if the tree was modified since the scan began
     * @throws IllegalArgumentException if {@code keys} is shorter than {@code rowIds}
     */
    public int next(long[] keys, long[] rowIds) {
      checkOpen();
      if (modifications != expectedModifications) {
        throw new ConcurrentModificationException("the tree was modified during a range scan");
      }
      if (keys != null && keys.length < rowIds.length) {
        throw new IllegalArgumentException("keys holds " + keys.length + " but rowIds " + rowIds.length);
      }
      int filled = 0;
      int capacity = rowIds.length;
      while (!done && filled < capacity) {
        if (p == n) {
          int next = s.get(INT, off + NEXT);
          if (next < 0) {
            done = true;
            break;
          }
          off = pool.offset(next);
          n = s.get(SHORT, off + KEYNUM);
          p = 0;
          if (prefetching && --ahead <= 0 && !cursorDone) {
            prefetchGroup();
          }
          continue;
        }
        int take = Math.min(n - p, capacity - filled);
        if (leafKey(s, off, p + take - 1) > hi) {
          // the range ends in this leaf: find its end
          int end = bound(s, off + LEAF_KEYS, n, hi, true);
          take = Math.max(0, Math.min(take, end - p));
          done = true;
        }
        MemorySegment.copy(s, LONG, off + rowIdOffset + 8L * p, rowIds, filled, take);
        if (keys != null) {
          for (int i = 0; i < take; i++) {
            keys[filled + i] = leafKey(s, off, p + i);
          }
        }
        filled += take;
        p += take;
      }
      consume(sink);
      return filled;
    }
  }

  // ---- introspection ----------------------------------------------------------------------

  /** Entries in the tree. */
  public long size() {
    return size;
  }

  /** Levels, leaves included (1: the root is a leaf). */
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

  public NodeLayout layout() {
    return layout;
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

  @Override
  public String toString() {
    return "PrefetchingBPlusTree[" + layout + ", " + size + " entries, height " + height + ", " + leafCount
        + " leaves, " + config.jumpPointers() + " jump pointers]";
  }
}
