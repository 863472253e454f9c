package dev.memwall.index.disk;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.KeyType;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.flash.FlashLeafFormat;
import dev.memwall.index.micro.MicroIndexFormat;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.PageFile;
import dev.memwall.index.page.PageFileFormatException;
import dev.memwall.index.page.PageFileFullException;
import dev.memwall.index.page.PageFormat;
import dev.memwall.index.slotted.SlottedPageFormat;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A durable B+-tree of page-sized nodes in a {@link PageFile}, read and written through a CLOCK
 * {@link BufferPool}: with {@link DiskTreeType#FPB_DISK_FIRST} the disk-first fpB+-tree of seed 002
 * chapter 3, with {@link DiskTreeType#SLOTTED} and {@link DiskTreeType#MICRO_INDEX} its baselines,
 * with {@link DiskTreeType#FLASH_LEAF} the flash-aware leaves of seed 001's EWOM paper.
 * The four share everything above the page ({@link PageFormat}): descent, splits, copy on
 * write, commits, scans and concurrency.
 *
 * <p><b>Entries.</b> Keys {@code int32} or {@code int64} ({@link KeyType}) passed as {@code long},
 * values {@code int64} row ids, duplicates allowed and kept in insertion order. A non-leaf page
 * holds one entry per child: {@code (upper bound of the child's keys, child page)}; keys under
 * entry {@code i} are {@code >=} the bound of entry {@code i-1}, and {@code <=} the bound of entry
 * {@code i} except under a page's last entry (inserts beyond a page's largest bound go there).
 * Deletes are lazy: pages are never merged; an empty leaf page stays until rebuilt.
 *
 * <p><b>Durability (shadow paging).</b> A page referenced by the last commit is never changed:
 * the first change after a commit copies the page (and its ancestors) to a free page. {@link #sync}
 * writes the dirty pages, then the new root in one of the page file's two commit records;
 * {@link #close} syncs. A crash at any point (process killed, power lost after the device
 * acknowledged) reopens at the last commit, intact; pages written after it are reclaimed when the
 * file is reopened (the free pages are those the committed tree does not reach). A page whose
 * checksum fails is reported as a {@link CorruptPageException} naming the file and page.
 *
 * <p><b>Concurrency.</b> One writer thread ({@link #insert}, {@link #delete}, {@link #sync},
 * bulkload, {@link #close}) and any number of concurrent readers ({@link #search},
 * {@link #searchFirst}, {@link #contains}, {@link #scan}). Readers take no locks: they read each
 * page's version stamp in the buffer pool, read the page, and validate the stamp afterwards,
 * coupling each child's stamp with a re-validation of its parent; on a failed validation they
 * retry from the root (or, for a scan, from the last key returned). The writer marks every page it
 * changes (and, during a split, the whole path from the root) for the duration of the change, so a
 * reader sees each operation entirely or not at all. A scan returns keys in order and never a
 * torn entry; entries that exist throughout the scan are returned exactly once, except that when
 * a scan resumes after a failed validation inside a run of equal keys that the writer changed
 * meanwhile, part of that run may be skipped or repeated (the scan resumes by key and count).
 * Scans hand out at most one leaf page per {@code next} call.
 *
 * <p><b>Ownership.</b> The tree owns its page file and buffer pool (frames charged to the
 * {@link EngineMemory}); {@link #close} syncs and frees them.
 *
 * <p><b>Where the pieces are.</b> This class holds the public API, the bulkload, the updates and
 * the commit; the package-private {@link ReadPath} (a reader's validated path and the point
 * lookup), {@link DiskTreeScan} (the range scan), {@link WritePath} (the writer's pinned path and
 * its copy on write) and {@link DiskTreeInvariants} hold the rest; the retries and scan batches it
 * shares with the cache-first tree are in {@link OptimisticReader} and {@link AbstractRangeScan}.
 *
 * <p><b>Bad input.</b> Keys outside the key type, unsorted bulkload input, a fill factor outside
 * (0, 1]: {@link IllegalArgumentException} before anything changes. A file that is not a tree of
 * this tree type and key type: {@link PageFileFormatException}, file untouched. A full page file:
 * {@link PageFileFullException} before the operation changes anything.
 */
public final class DiskBPlusTree extends AbstractDiskTree {
  private static final long TREE_MAGIC = DiskIndex.FILE_MAGIC;
  static final int KIND_LEAF = 1;
  static final int KIND_INNER = 2;
  /** Most levels a tree may have (the length of the read and write paths). */
  static final int MAX_HEIGHT = 32;
  static final long END = PageFormat.END;

  /** The root page and the height, replaced as a whole (one volatile store) when either changes. */
  record Root(int page, int height) {}

  private final MemorySegment seg;
  private final PageFormat leafFmt;
  private final PageFormat innerFmt;
  /** The root readers descend from; the writer replaces it. */
  volatile Root root;

  // writer state
  private final WritePath path;
  private final long[] scratchKeys;
  private final long[] scratchValues;

  private DiskBPlusTree(PageFile file, DiskTreeConfig config, EngineMemory memory) {
    // checked before the base class allocates the buffer pool
    PageFormat leaf = format(config, Long.BYTES);
    PageFormat inner = format(config, Integer.BYTES);
    if (leaf.capacity() < 3 || inner.capacity() < 3) {
      throw new IllegalArgumentException("pages of " + config + " hold fewer than 3 entries");
    }
    this.leafFmt = leaf;
    this.innerFmt = inner;
    int scratch = Math.max(leaf.capacity(), inner.capacity()) + 2;
    this.scratchKeys = new long[scratch];
    this.scratchValues = new long[scratch];
    super(file, config, memory, "disk tree");
    this.seg = pool.frames();
    this.path = new WritePath(this);
  }

  private static PageFormat format(DiskTreeConfig c, int valueBytes) {
    int kb = c.keyType().bytes();
    return switch (c.treeType()) {
      case FPB_DISK_FIRST -> DiskFirstFormat.of(c.pageBytes(), kb, valueBytes, c.nonLeafLines(), c.leafLines());
      case SLOTTED -> new SlottedPageFormat(c.pageBytes(), kb, valueBytes);
      case MICRO_INDEX -> new MicroIndexFormat(c.pageBytes(), kb, valueBytes, c.subarrayLines());
      // the paper's flash leaf is a leaf design (8-byte row ids); the non-leaf pages stay slotted
      case FLASH_LEAF -> valueBytes == Long.BYTES ? new FlashLeafFormat(c.pageBytes(), kb, valueBytes)
          : new SlottedPageFormat(c.pageBytes(), kb, valueBytes);
      case FPB_CACHE_FIRST -> throw new IllegalArgumentException(
          "the FPB_CACHE_FIRST tree type is a CacheFirstTree: create it through DiskIndexes or CacheFirstTree");
    };
  }

  // ---- creating and opening ----------------------------------------------------------------

  /**
   * A new file at {@code path} holding an empty tree (committed).
   *
   * @throws java.io.UncheckedIOException if the file exists
   */
  public static DiskBPlusTree create(Path path, DiskTreeConfig config, EngineMemory memory) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(memory, "memory");
    return createWith(path, config, memory, tree -> {
      int page = tree.shadow.allocate();
      tree.buildNewPage(page, KIND_LEAF, tree.leafFmt, tree.scratchKeys, tree.scratchValues, 0, 0);
      tree.root = new Root(page, 1);
    });
  }

  private static DiskBPlusTree createWith(Path path, DiskTreeConfig config, EngineMemory memory,
      Consumer<DiskBPlusTree> init) {
    return createAndCommit(path, config, file -> new DiskBPlusTree(file, config, memory), init);
  }

  /**
   * Bulkloads a new file at {@code path} from sorted entries: leaf pages get {@code round(fill *
   * capacity)} entries (spread evenly), non-leaf pages likewise, and the result is committed.
   *
   * @throws IllegalArgumentException if the entries are unsorted, a key does not fit, or the fill
   *     factor is outside (0, 1]; no file is created then
   */
  public static DiskBPlusTree bulkload(Path path, DiskTreeConfig config, EngineMemory memory, SortedEntries entries,
      double fill) {
    checkBulkload(config, entries, fill);
    return createWith(path, config, memory, tree -> tree.build(entries, fill));
  }

  private void build(SortedEntries entries, double fill) {
    long n = entries.size();
    int perLeaf = Math.max(1, Math.min(leafFmt.capacity(), (int) Math.round(fill * leafFmt.capacity())));
    long leafCount = Math.max(1, (n + perLeaf - 1) / perLeaf);
    if (leafCount > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException(n + " entries need more pages than a page file holds");
    }
    int count = (int) leafCount;
    int[] pages = new int[count];
    long[] bounds = new long[count];
    long at = 0;
    for (int j = 0; j < count; j++) {
      long end = n * (j + 1) / count;
      int c = (int) (end - at);
      for (int i = 0; i < c; i++, at++) {
        scratchKeys[i] = entries.key(at);
        scratchValues[i] = entries.rowId(at);
      }
      pages[j] = shadow.allocate();
      buildNewPage(pages[j], KIND_LEAF, leafFmt, scratchKeys, scratchValues, 0, c);
      bounds[j] = c > 0 ? scratchKeys[c - 1] : keyType.max();
    }
    int height = 1;
    int perInner = Math.max(2, Math.min(innerFmt.capacity(), (int) Math.round(fill * innerFmt.capacity())));
    while (count > 1) {
      int parents = (count + perInner - 1) / perInner;
      int from = 0;
      for (int p = 0; p < parents; p++) {
        int to = (int) ((long) count * (p + 1) / parents);
        for (int i = from; i < to; i++) {
          scratchKeys[i - from] = bounds[i];
          scratchValues[i - from] = pages[i];
        }
        int page = shadow.allocate();
        buildNewPage(page, KIND_INNER, innerFmt, scratchKeys, scratchValues, 0, to - from);
        pages[p] = page;
        bounds[p] = bounds[to - 1];
        from = to;
      }
      count = parents;
      height++;
    }
    size = n;
    root = new Root(pages[0], height);
  }

  /**
   * Opens the tree in {@code path}: its tree type and key type must be {@code config}'s; the in-page
   * widths are the file's own. Pages written after the last commit are reclaimed.
   *
   * @throws PageFileFormatException if the file is not a page file, of another version or page
   *     size, or holds no tree or a tree of another tree type or key type; the file is not changed
   * @throws CorruptPageException if a page of the tree fails its checksum
   */
  public static DiskBPlusTree open(Path path, DiskTreeConfig config, EngineMemory memory) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(memory, "memory");
    return openWith(path, config, (file, meta) -> {
      checkMeta(path, meta, 9, 9, config.treeType(), config.keyType());
      DiskTreeConfig own = config.withWidths((int) meta[3], (int) meta[4]).withSubarrayLines((int) meta[5]);
      return new DiskBPlusTree(file, own, memory);
    }, (tree, meta) -> {
      tree.root = new Root((int) meta[6], (int) meta[7]);
      tree.size = meta[8];
      tree.reclaimUnreachable();
    });
  }

  private long[] meta() {
    Root r = root;
    return new long[] {TREE_MAGIC, config.treeType().ordinal(), keyType.bytes(), config.nonLeafLines(),
        config.leafLines(), config.subarrayLines(), r.page(), r.height(), size};
  }

  /** Every data page the committed tree does not reach becomes free. */
  private void reclaimUnreachable() {
    BitSet reached = new BitSet();
    markReachable(root.page(), root.height() - 1, reached);
    shadow.reclaimAllBut(reached);
  }

  private void markReachable(int page, int levelsBelow, BitSet reached) {
    if (page < PageFile.FIRST_DATA_PAGE || page >= file.usedPages() || reached.get(page)) {
      throw new CorruptPageException(file.path(), page, "tree references page " + page + " twice or outside the file");
    }
    reached.set(page);
    if (levelsBelow == 0) {
      return;
    }
    int frame = pool.pin(page);
    try {
      long base = pool.offset(frame);
      for (long h = innerFmt.first(seg, base); h != END; h = innerFmt.next(seg, base, h)) {
        markReachable((int) innerFmt.value(seg, base, h), levelsBelow - 1, reached);
      }
    } finally {
      pool.unpin(frame);
    }
  }

  // ---- new pages ---------------------------------------------------------------------------

  private void buildNewPage(int page, int kind, PageFormat fmt, long[] keys, long[] values, int from, int n) {
    int frame = pool.pinNew(page);
    try {
      pool.beginWrite(frame);
      long base = pool.offset(frame);
      seg.set(PageFormat.SHORT, base + PageFormat.KIND, (short) kind);
      fmt.build(seg, base, keys, values, from, n);
      pool.endWrite(frame);
    } finally {
      pool.unpin(frame);
    }
  }

  // ---- writer operations -------------------------------------------------------------------

  /**
   * Adds {@code (key, rowId)} after every entry with the same key.
   *
   * @throws IllegalArgumentException if the key does not fit the key type
   * @throws PageFileFullException if the file cannot hold the pages the insert may need; the tree
   *     is unchanged then
   */
  @Override
  public void insert(long key, long rowId) {
    checkOpen();
    keyType.check(key);
    int height = root.height();
    shadow.reserve(2 * height + 2);
    try {
      path.descend(key, true);
      int leaf = height - 1;
      path.makeWritable(leaf);
      changedSinceCommit = true;
      long h = leafFmt.insertionPoint(seg, path.base(leaf), key);
      pool.beginWrite(path.frameAt[leaf]);
      boolean done = leafFmt.insertAt(seg, path.base(leaf), h, key, rowId);
      pool.endWrite(path.frameAt[leaf]);
      if (!done) {
        // a rebuild or split: readers must not see the pages of the path in between
        for (int d = 0; d < height; d++) {
          pool.beginWrite(path.frameAt[d]);
        }
        try {
          insertSlow(leaf, h, key, rowId);
        } finally {
          for (int d = 0; d < height; d++) {
            pool.endWrite(path.frameAt[d]);
          }
        }
      }
      size = size + 1;
    } finally {
      path.unpinAll();
    }
  }

  /** Inserts into the page at {@code depth} (writable, marked) by rebuilding or splitting it. */
  private void insertSlow(int depth, long h, long key, long value) {
    boolean leaf = depth == root.height() - 1;
    PageFormat fmt = leaf ? leafFmt : innerFmt;
    long base = path.base(depth);
    if (fmt.insertAt(seg, base, h, key, value)) {
      return;
    }
    int rank = fmt.rank(seg, base, h);
    int n = fmt.flatten(seg, base, scratchKeys, scratchValues);
    System.arraycopy(scratchKeys, rank, scratchKeys, rank + 1, n - rank);
    System.arraycopy(scratchValues, rank, scratchValues, rank + 1, n - rank);
    scratchKeys[rank] = key;
    scratchValues[rank] = value;
    n++;
    if (n <= fmt.reorganizeLimit()) {
      fmt.build(seg, base, scratchKeys, scratchValues, 0, n);
      return;
    }
    int m = n / 2;
    int right = shadow.allocate();
    buildNewPage(right, leaf ? KIND_LEAF : KIND_INNER, fmt, scratchKeys, scratchValues, m, n - m);
    fmt.build(seg, base, scratchKeys, scratchValues, 0, m);
    long separator = scratchKeys[m - 1];
    if (depth == 0) {
      scratchKeys[0] = separator;
      scratchValues[0] = path.pageAt[0];
      scratchKeys[1] = keyType.max();
      scratchValues[1] = right;
      int page = shadow.allocate();
      buildNewPage(page, KIND_INNER, innerFmt, scratchKeys, scratchValues, 0, 2);
      root = new Root(page, root.height() + 1);
    } else {
      innerFmt.setValue(seg, path.base(depth - 1), path.handleAt[depth - 1], right);
      insertSlow(depth - 1, path.handleAt[depth - 1], separator, path.pageAt[depth]);
    }
  }

  /**
   * Removes the first entry {@code (key, rowId)} (in insertion order); false if there is none.
   * Pages are not merged.
   *
   * @throws IllegalArgumentException if the key does not fit the key type
   */
  @Override
  public boolean delete(long key, long rowId) {
    checkOpen();
    keyType.check(key);
    int height = root.height();
    shadow.reserve(height);
    try {
      path.descend(key, false);
      int leaf = height - 1;
      long h = leafFmt.lowerBound(seg, path.base(leaf), key);
      for (;;) {
        if (h == END) {
          if (!path.advance(height)) {
            return false;
          }
          h = leafFmt.first(seg, path.base(leaf));
          continue;
        }
        if (leafFmt.key(seg, path.base(leaf), h) != key) {
          return false;
        }
        if (leafFmt.value(seg, path.base(leaf), h) == rowId) {
          path.makeWritable(leaf);
          changedSinceCommit = true;
          pool.beginWrite(path.frameAt[leaf]);
          leafFmt.remove(seg, path.base(leaf), h);
          pool.endWrite(path.frameAt[leaf]);
          size = size - 1;
          return true;
        }
        h = leafFmt.next(seg, path.base(leaf), h);
      }
    } finally {
      path.unpinAll();
    }
  }

  /**
   * Commits: everything changed so far survives a crash from now on. Pages replaced since the
   * last commit become free.
   */
  @Override
  public void sync() {
    checkOpen();
    if (!changedSinceCommit) {
      return;
    }
    pool.flush();
    file.commit(meta());
    shadow.committed();
    changedSinceCommit = false;
  }

  // ---- readers -----------------------------------------------------------------------------

  @Override
  protected ReadPath newReader() {
    return new ReadPath(this);
  }

  /** The calling thread's read path. */
  ReadPath readPath() {
    return (ReadPath) reader();
  }

  /** A scan of the entries with {@code lo <= key <= hi}, in key order (empty if lo > hi). */
  @Override
  public RangeScan scan(long lo, long hi) {
    checkOpen();
    return new RangeScan(this, lo, hi);
  }

  /**
   * A range scan of a disk tree in batches, in key order, prefetching the leaf pages ahead (see
   * {@link DiskTreeScan} for how it reads).
   *
   * <p>Guarantee: keys in order, never a torn entry; entries that exist throughout the scan are
   * returned exactly once, except that part of a run of equal keys the writer changed while the
   * scan was inside it may be skipped or repeated when the scan resumes by key and count. A batch
   * holds the entries of at most one leaf page.
   *
   * <p>Thread safety: one thread per scan; it may run concurrently with the tree's writer (see
   * the class comment).
   */
  public static final class RangeScan extends DiskTreeScan {
    private RangeScan(DiskBPlusTree tree, long lo, long hi) {
      super(tree, lo, hi);
    }
  }

  // ---- inspection --------------------------------------------------------------------------

  /** Levels of pages (1: the root is a leaf). */
  @Override
  public int height() {
    return root.height();
  }

  /** The format of leaf pages (the fpB+ in-page tree, slotted, micro-indexed or flash leaf page). */
  public PageFormat leafFormat() {
    return leafFmt;
  }

  public PageFormat innerFormat() {
    return innerFmt;
  }

  /**
   * Walks the whole tree (writer thread only) and checks every page's own invariants, the key
   * bounds between pages, uniform height, the entry count, and that no reachable page is free.
   *
   * @throws IllegalStateException describing the first violation
   */
  @Override
  public void checkInvariants() {
    checkOpen();
    new DiskTreeInvariants(this).check();
  }

  @Override
  public String toString() {
    return "DiskBPlusTree[" + config.treeType() + ", " + file.path() + ", " + size + " entries, height "
        + root.height() + ", " + leafFmt + "]";
  }
}
