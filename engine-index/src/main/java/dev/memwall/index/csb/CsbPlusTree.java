package dev.memwall.index.csb;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.vector.Column;
import dev.memwall.index.IndexScan;
import dev.memwall.index.KeyType;
import dev.memwall.index.OrderedIndex;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.node.LevelSizes;
import dev.memwall.index.node.NodeFetch;
import dev.memwall.index.node.NodeKeys;
import dev.memwall.index.node.NodePool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A cache-sensitive B+-tree (CSB+-tree, Rao and Ross; the baseline of seed 002 chapter 2),
 * bulkloaded and then only read (an {@link OrderedIndex}, not updatable): the children of a node
 * are stored contiguously (a node group), so a non-leaf keeps one child pointer instead of one per
 * child and a one-line node holds almost twice the keys of a B+-tree node.
 *
 * <pre>
 * non-leaf: [0,2) keynum  [2,4) level (>= 1)  [4,8) first child id   [8, ...) keys
 *           (child i is node firstChild + i, i = 0 .. keynum)
 * leaf:     [0,2) keynum  [2,4) level 0       [4,8) unused           [8, ...) keys, then row ids
 *           (8-aligned); the leaves are nodes 0 .. leafCount - 1 in key order
 * </pre>
 *
 * <p>Separator semantics and duplicates are those of the pB+-tree: separator {@code i} bounds
 * child {@code i} from above and child {@code i + 1} from below, inclusively; a search descends
 * to the first entry {@code >= key} and collects equal keys across leaves.
 *
 * <p>Ownership: nodes off-heap in one {@link NodePool}, freed by {@link #close()}. Thread safety:
 * immutable after the bulkload, so any number of threads may search and scan concurrently (not
 * while it is being closed; each scan on one thread). Bad input: as {@link SortedEntries#validate}
 * and {@link KeyType#check}, refused with {@link IllegalArgumentException} before allocation; a
 * lookup key or scan bound outside the key type likewise.
 */
public final class CsbPlusTree implements OrderedIndex {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
  private static final long KEYNUM = 0;
  private static final long LEVEL = 2;
  private static final long FIRST_CHILD = 4;
  private static final long KEYS = 8;

  private final KeyType keyType;
  private final boolean int64;
  private final int lines;
  private final boolean fetch;
  private final long nodeBytes;
  private final int innerKeys;
  private final int leafEntries;
  private final long rowIdOffset;
  private final NodePool pool;
  private int root;
  private int height;
  private long size;
  private int leafCount;
  private boolean closed;

  private CsbPlusTree(EngineMemory memory, KeyType keyType, int widthLines, boolean fetch, long nodes,
      Placement placement) {
    this.keyType = keyType;
    this.int64 = keyType == KeyType.INT64;
    this.lines = widthLines;
    this.fetch = fetch && widthLines > 1;
    this.nodeBytes = (long) widthLines * NodePool.LINE_BYTES;
    int kb = keyType.bytes();
    this.innerKeys = (int) ((nodeBytes - KEYS) / kb);
    int entries = (int) ((nodeBytes - KEYS) / (kb + 8));
    while (((KEYS + (long) entries * kb + 7) & -8L) + 8L * entries > nodeBytes) {
      entries--;
    }
    this.leafEntries = entries;
    this.rowIdOffset = (KEYS + (long) entries * kb + 7) & -8L;
    this.pool = NodePool.create(memory, (int) nodeBytes, nodes, placement);
  }

  /** Most children of a non-leaf. */
  public static int fanout(KeyType keyType, int widthLines) {
    return (widthLines * NodePool.LINE_BYTES - (int) KEYS) / keyType.bytes() + 1;
  }

  /** {@link #bulkload(EngineMemory, KeyType, int, boolean, SortedEntries, double)} from an Arrow key column. */
  public static CsbPlusTree bulkload(EngineMemory memory, KeyType keyType, int widthLines, Column keys,
      double fillFactor) {
    checkArguments(widthLines, fillFactor);
    return bulkload(memory, keyType, widthLines, false, SortedEntries.fromColumn(keys, keyType), fillFactor);
  }

  /**
   * A CSB+-tree of {@code widthLines}-line nodes built bottom-up from sorted entries, leaves
   * {@code round(fill * L)} full, every level contiguous so each node's children form one group.
   *
   * @param fetchWholeNode load all lines of a node before searching it (only matters for w > 1)
   * @throws IllegalArgumentException if the width is outside 1 .. 64, the fill factor outside (0, 1],
   *     or the entries unsorted or out of the key type's range
   */
  public static CsbPlusTree bulkload(EngineMemory memory, KeyType keyType, int widthLines, boolean fetchWholeNode,
      SortedEntries entries, double fillFactor) {
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(keyType, "keyType");
    checkArguments(widthLines, fillFactor);
    entries.validate(keyType);
    long n = entries.size();
    int kb = keyType.bytes();
    long nb = (long) widthLines * NodePool.LINE_BYTES;
    int leafCap = (int) ((nb - KEYS) / (kb + 8));
    while (((KEYS + (long) leafCap * kb + 7) & -8L) + 8L * leafCap > nb) {
      leafCap--;
    }
    int fanout = fanout(keyType, widthLines);
    int perLeaf = LevelSizes.perNode(fillFactor, leafCap, 1);
    int perInner = LevelSizes.perNode(fillFactor, fanout, 2);
    long leaves = Math.max(1, (n + perLeaf - 1) / perLeaf);
    long total = LevelSizes.totalNodes(leaves, perInner);
    if (total > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(n + " entries need " + total + " nodes, more than one node pool addresses");
    }
    CsbPlusTree tree = new CsbPlusTree(memory, keyType, widthLines, fetchWholeNode, total, Placement.HUGE_PAGES);
    try {
      tree.build(entries, (int) leaves, perInner);
    } catch (RuntimeException | Error e) {
      tree.close();
      throw e;
    }
    return tree;
  }

  private static void checkArguments(int widthLines, double fillFactor) {
    if (widthLines < 1 || widthLines > 64) {
      throw new IllegalArgumentException("node width must be 1 .. 64 cache lines, got " + widthLines);
    }
    LevelSizes.checkFill(fillFactor);
  }

  private void build(SortedEntries entries, int leaves, int perInner) {
    long n = entries.size();
    int firstLeaf = pool.allocateRun(leaves);
    MemorySegment s = pool.segment();
    long at = 0;
    for (int i = 0; i < leaves; i++) {
      long off = pool.offset(firstLeaf + i);
      int m = LevelSizes.share(n, leaves, i);
      for (int e = 0; e < m; e++, at++) {
        setKey(s, off, e, entries.key(at));
        s.set(LONG, off + rowIdOffset + 8L * e, entries.rowId(at));
      }
      s.set(SHORT, off + KEYNUM, (short) m);
    }
    int levelFirst = firstLeaf;
    int levelCount = leaves;
    long[] minKeys = null;
    int level = 0;
    while (levelCount > 1) {
      int parents = (int) LevelSizes.parentCount(levelCount, perInner);
      int first = pool.allocateRun(parents);
      long[] parentMins = new long[parents];
      int child = 0;
      for (int p = 0; p < parents; p++) {
        long off = pool.offset(first + p);
        int children = LevelSizes.share(levelCount, parents, p);
        s.set(SHORT, off + KEYNUM, (short) (children - 1));
        s.set(SHORT, off + LEVEL, (short) (level + 1));
        s.set(INT, off + FIRST_CHILD, levelFirst + child);
        for (int c = 0; c < children; c++, child++) {
          long childMin = minKeys == null ? key(s, pool.offset(levelFirst + child), 0) : minKeys[child];
          if (c == 0) {
            parentMins[p] = childMin;
          } else {
            setKey(s, off, c - 1, childMin);
          }
        }
      }
      minKeys = parentMins;
      levelFirst = first;
      levelCount = parents;
      level++;
    }
    root = levelFirst;
    height = level + 1;
    size = n;
    leafCount = leaves;
  }

  private long key(MemorySegment s, long off, int i) {
    return NodeKeys.get(s, off + KEYS, i, int64);
  }

  private void setKey(MemorySegment s, long off, int i, long key) {
    NodeKeys.set(s, off + KEYS, i, key, int64);
  }

  /** First position in {@code [0, n]} with key {@code >= key}; branch-free binary search. */
  private int lowerBound(MemorySegment s, long off, int n, long key) {
    if (n == 0) {
      return 0;
    }
    int base = 0;
    int len = n;
    while (len > 1) {
      int half = len >>> 1;
      base = key(s, off, base + half) < key ? base + half : base;
      len -= half;
    }
    return base + (key(s, off, base) < key ? 1 : 0);
  }

  /**
   * The leaf a search for the first entry {@code >= key} reaches, fetching each inner node whole
   * when the tree was built to; the folded loads of those fetches are consumed here.
   */
  private int descend(MemorySegment s, long key) {
    int node = root;
    long folded = 0;
    for (int level = height - 1; level > 0; level--) {
      long off = node * nodeBytes;
      if (fetch) {
        folded += NodeFetch.touchRest(s, off, lines);
      }
      int n = s.get(SHORT, off + KEYNUM);
      node = s.get(INT, off + FIRST_CHILD) + lowerBound(s, off, n, key);
    }
    NodeFetch.consume(folded);
    return node;
  }

  /**
   * Appends every row id under {@code key} to {@code out}, in bulkload order; returns how many.
   *
   * @throws IllegalArgumentException if {@code key} does not fit the key type
   */
  @Override
  public int search(long key, RowIds out) {
    MemorySegment s = segmentFor(key);
    int leaf = descend(s, key);
    long off = leaf * nodeBytes;
    int n = s.get(SHORT, off + KEYNUM);
    int p = lowerBound(s, off, n, key);
    int found = 0;
    while (true) {
      for (; p < n; p++) {
        if (key(s, off, p) != key) {
          return found;
        }
        out.add(s.get(LONG, off + rowIdOffset + 8L * p));
        found++;
      }
      if (++leaf >= leafCount) {
        return found;
      }
      off = leaf * nodeBytes;
      n = s.get(SHORT, off + KEYNUM);
      p = 0;
    }
  }

  /** The row id of the first entry under {@code key}, or {@code absent}. */
  @Override
  public long searchFirst(long key, long absent) {
    MemorySegment s = segmentFor(key);
    long at = firstEntryAtOrAfter(s, key);
    if (at < 0) {
      return absent;
    }
    long off = (at >>> 32) * nodeBytes;
    int p = (int) at;
    return key(s, off, p) == key ? s.get(LONG, off + rowIdOffset + 8L * p) : absent;
  }

  /**
   * Whether any entry has {@code key}.
   *
   * @throws IllegalArgumentException if {@code key} does not fit the key type
   */
  @Override
  public boolean contains(long key) {
    MemorySegment s = segmentFor(key);
    long at = firstEntryAtOrAfter(s, key);
    return at >= 0 && key(s, (at >>> 32) * nodeBytes, (int) at) == key;
  }

  /**
   * The first entry with a key {@code >= key}, as {@code leaf << 32 | position}; the position may
   * be the leaf's key count, and the entry then begins the next leaf.
   */
  private long lowerBoundEntry(MemorySegment s, long key) {
    int leaf = descend(s, key);
    long off = leaf * nodeBytes;
    int p = lowerBound(s, off, s.get(SHORT, off + KEYNUM), key);
    return (long) leaf << 32 | p;
  }

  /**
   * The first entry with a key {@code >= key}, packed as by {@link #lowerBoundEntry} but with a
   * position inside its leaf (an entry past the end of one leaf begins the next), or -1 if there
   * is none. Bulkloaded leaves are never empty (except the single leaf of an empty tree), so the
   * next leaf's first position holds an entry.
   */
  private long firstEntryAtOrAfter(MemorySegment s, long key) {
    long at = lowerBoundEntry(s, key);
    int leaf = (int) (at >>> 32);
    if ((int) at < s.get(SHORT, leaf * nodeBytes + KEYNUM)) {
      return at;
    }
    return leaf + 1 < leafCount ? (long) (leaf + 1) << 32 : -1;
  }

  /**
   * A scan of the entries with {@code lo <= key <= hi} in key order (equal keys in bulkload
   * order), empty if {@code lo > hi}: a search for {@code lo}, then the leaves in order.
   *
   * @throws IllegalArgumentException if a bound does not fit the key type
   */
  @Override
  public RangeScan scan(long lo, long hi) {
    checkOpen();
    keyType.check(lo);
    keyType.check(hi);
    return new RangeScan(lo, hi);
  }

  /**
   * An open range scan of the tree; read it with {@link #next}. One thread per scan; invalid once
   * the tree is closed ({@link IllegalStateException}).
   */
  public final class RangeScan implements IndexScan {
    private final long hi;
    private int leaf;
    private int p;
    private boolean done;

    private RangeScan(long lo, long hi) {
      this.hi = hi;
      this.done = lo > hi;
      if (!done) {
        long at = lowerBoundEntry(pool.segment(), lo);
        leaf = (int) (at >>> 32);
        p = (int) at;
      }
    }

    @Override
    public int next(long[] rowIds) {
      return next(null, rowIds);
    }

    /**
     * Fills {@code rowIds} (and {@code keys}, when not null, with the matching keys) with the next
     * entries of the range, up to the array's length; returns how many, 0 once it is exhausted.
     *
     * @throws IllegalArgumentException if {@code keys} is shorter than {@code rowIds}
     */
    @Override
    public int next(long[] keys, long[] rowIds) {
      checkOpen();
      if (keys != null && keys.length < rowIds.length) {
        throw new IllegalArgumentException("keys holds " + keys.length + " but rowIds " + rowIds.length);
      }
      MemorySegment s = pool.segment();
      int filled = 0;
      while (!done && filled < rowIds.length) {
        long off = leaf * nodeBytes;
        if (p == s.get(SHORT, off + KEYNUM)) {
          done = ++leaf >= leafCount;
          p = 0;
          continue;
        }
        long k = key(s, off, p);
        if (k > hi) {
          done = true;
          break;
        }
        if (keys != null) {
          keys[filled] = k;
        }
        rowIds[filled++] = s.get(LONG, off + rowIdOffset + 8L * p++);
      }
      return filled;
    }
  }

  /**
   * The node segment, for a lookup of {@code key}.
   *
   * @throws IllegalStateException if the tree is closed
   * @throws IllegalArgumentException if {@code key} does not fit the key type
   */
  private MemorySegment segmentFor(long key) {
    checkOpen();
    keyType.check(key);
    return pool.segment();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("tree is closed");
    }
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public int height() {
    return height;
  }

  @Override
  public KeyType keyType() {
    return keyType;
  }

  /** Off-heap bytes of the nodes. */
  public long reservedBytes() {
    return pool.reservedBytes();
  }

  /**
   * Checks levels, key order within nodes and against the parents' separators, capacities, that
   * each node group lies within the pool and the leaves are visited in order 0 .. leafCount - 1,
   * and the entry count.
   *
   * @throws IllegalStateException describing the first violation
   */
  @Override
  public void checkInvariants() {
    checkOpen();
    int[] nextLeaf = {0};
    long entries = walk(pool.segment(), root, height - 1, Long.MIN_VALUE, Long.MAX_VALUE, nextLeaf);
    if (entries != size || nextLeaf[0] != leafCount) {
      throw new IllegalStateException("tree holds " + entries + " entries in " + nextLeaf[0] + " leaves, counts "
          + size + " in " + leafCount);
    }
  }

  private long walk(MemorySegment s, int node, int level, long lo, long hi, int[] nextLeaf) {
    if (node < 0 || node >= pool.allocatedNodes()) {
      throw new IllegalStateException("node id " + node + " outside the pool");
    }
    long off = node * nodeBytes;
    if (s.get(SHORT, off + LEVEL) != level) {
      throw new IllegalStateException("node " + node + " says level " + s.get(SHORT, off + LEVEL) + ", sits at " + level);
    }
    int n = s.get(SHORT, off + KEYNUM);
    if (n < 0 || n > (level == 0 ? leafEntries : innerKeys)) {
      throw new IllegalStateException("node " + node + " holds " + n + " keys");
    }
    long previous = lo;
    for (int i = 0; i < n; i++) {
      long k = key(s, off, i);
      if (k < previous || k > hi) {
        throw new IllegalStateException("node " + node + " key " + i + " = " + k + " out of order or outside [" + lo
            + ", " + hi + "]");
      }
      previous = k;
    }
    if (level == 0) {
      if (node != nextLeaf[0]++) {
        throw new IllegalStateException("leaf " + node + " visited at position " + (nextLeaf[0] - 1));
      }
      return n;
    }
    int first = s.get(INT, off + FIRST_CHILD);
    long entries = 0;
    for (int c = 0; c <= n; c++) {
      entries += walk(s, first + c, level - 1, c == 0 ? lo : key(s, off, c - 1), c == n ? hi : key(s, off, c),
          nextLeaf);
    }
    return entries;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      pool.close();
    }
  }
}
