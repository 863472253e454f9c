package dev.memwall.index.disk;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.fpb.DiskFirstFormat;
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
 * {@link BufferPool}: with {@link PageLayout#FPB_DISK_FIRST} the disk-first fpB+-tree of seed 002
 * chapter 3, with {@link PageLayout#SLOTTED} and {@link PageLayout#MICRO_INDEX} its baselines.
 * The layouts share everything above the page ({@link PageFormat}): descent, splits, copy on
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
 * <p><b>Bad input.</b> Keys outside the key type, unsorted bulkload input, a fill factor outside
 * (0, 1]: {@link IllegalArgumentException} before anything changes. A file that is not a tree of
 * this layout and key type: {@link PageFileFormatException}, file untouched. A full page file:
 * {@link PageFileFullException} before the operation changes anything.
 */
public final class DiskBPlusTree extends AbstractDiskTree {
  private static final long TREE_MAGIC = DiskIndex.FILE_MAGIC;
  private static final int KIND_LEAF = 1;
  private static final int KIND_INNER = 2;
  private static final int MAX_HEIGHT = 32;
  private static final long END = PageFormat.END;

  private record Root(int page, int height) {}

  private final MemorySegment seg;
  private final PageFormat leafFmt;
  private final PageFormat innerFmt;
  private final int pageBytes;
  private volatile Root root;
  private final ThreadLocal<ReadPath> readPaths = ThreadLocal.withInitial(ReadPath::new);

  // writer state
  private final int[] wPage = new int[MAX_HEIGHT];
  private final int[] wFrame = new int[MAX_HEIGHT];
  private final boolean[] wPinned = new boolean[MAX_HEIGHT];
  private final long[] wHandle = new long[MAX_HEIGHT];
  private final long[] scratchKeys;
  private final long[] scratchValues;

  private DiskBPlusTree(PageFile file, DiskTreeConfig config, EngineMemory memory) {
    // checked before the base class allocates the buffer pool
    PageFormat leaf = format(config, Long.BYTES);
    PageFormat inner = format(config, Integer.BYTES);
    if (leaf.capacity() < 3 || inner.capacity() < 3) {
      throw new IllegalArgumentException("pages of " + config + " hold fewer than 3 entries");
    }
    this.pageBytes = config.pageBytes();
    this.leafFmt = leaf;
    this.innerFmt = inner;
    int scratch = Math.max(leaf.capacity(), inner.capacity()) + 2;
    this.scratchKeys = new long[scratch];
    this.scratchValues = new long[scratch];
    super(file, config, memory, "disk tree");
    this.seg = pool.frames();
  }

  private static PageFormat format(DiskTreeConfig c, int valueBytes) {
    int kb = c.keyType().bytes();
    return switch (c.layout()) {
      case FPB_DISK_FIRST -> DiskFirstFormat.of(c.pageBytes(), kb, valueBytes, c.nonLeafLines(), c.leafLines());
      case SLOTTED -> new SlottedPageFormat(c.pageBytes(), kb, valueBytes);
      case MICRO_INDEX -> new MicroIndexFormat(c.pageBytes(), kb, valueBytes, c.subarrayLines());
      case FPB_CACHE_FIRST -> throw new IllegalArgumentException(
          "the cache-first layout is a CacheFirstTree: create it through DiskIndex or CacheFirstTree");
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
   * Opens the tree in {@code path}: its layout and key type must be {@code config}'s; the in-page
   * widths are the file's own. Pages written after the last commit are reclaimed.
   *
   * @throws PageFileFormatException if the file is not a page file, of another version or page
   *     size, or holds no tree or a tree of another layout or key type; the file is not changed
   * @throws CorruptPageException if a page of the tree fails its checksum
   */
  public static DiskBPlusTree open(Path path, DiskTreeConfig config, EngineMemory memory) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(memory, "memory");
    return openWith(path, config, (file, meta) -> {
      checkMeta(path, meta, 9, 9, config.layout(), config.keyType());
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
    return new long[] {TREE_MAGIC, config.layout().ordinal(), keyType.bytes(), config.nonLeafLines(),
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

  // ---- page allocation and copy on write ---------------------------------------------------

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

  private void pinAt(int depth, int page) {
    wPage[depth] = page;
    wFrame[depth] = pool.pin(page);
    wPinned[depth] = true;
  }

  private void unpinAt(int depth) {
    if (wPinned[depth]) {
      wPinned[depth] = false;
      pool.unpin(wFrame[depth]);
    }
  }

  private void unpinPath() {
    for (int d = 0; d < MAX_HEIGHT; d++) {
      unpinAt(d);
    }
  }

  private long base(int depth) {
    return pool.offset(wFrame[depth]);
  }

  /** Pins the path to the leaf for {@code key} (strict: past equal keys, for inserts). */
  private void descendForWrite(long key, boolean strict) {
    Root r = root;
    int page = r.page();
    for (int d = 0; ; d++) {
      pinAt(d, page);
      if (d == r.height() - 1) {
        return;
      }
      long base = base(d);
      long h = strict ? innerFmt.upperBound(seg, base, key) : innerFmt.lowerBound(seg, base, key);
      if (h == END) {
        h = innerFmt.last(seg, base);
      }
      wHandle[d] = h;
      page = (int) innerFmt.value(seg, base, h);
    }
  }

  /** Copies every committed page of the path down to {@code depth} (shadow paging). */
  private void makeWritable(int depth) {
    for (int d = 0; d <= depth; d++) {
      if (shadow.writtenSinceCommit(wPage[d])) {
        continue;
      }
      int copy = shadow.allocate();
      int frame = pool.pinNew(copy);
      pool.beginWrite(frame);
      MemorySegment.copy(seg, base(d), seg, pool.offset(frame), pageBytes);
      pool.endWrite(frame);
      unpinAt(d);
      shadow.freeAfterCommit(wPage[d]);
      wPage[d] = copy;
      wFrame[d] = frame;
      wPinned[d] = true;
      if (d == 0) {
        root = new Root(copy, root.height());
      } else {
        int parent = wFrame[d - 1];
        pool.beginWrite(parent);
        innerFmt.setValue(seg, base(d - 1), wHandle[d - 1], copy);
        pool.endWrite(parent);
      }
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
      descendForWrite(key, true);
      int leaf = height - 1;
      makeWritable(leaf);
      changedSinceCommit = true;
      long h = leafFmt.insertionPoint(seg, base(leaf), key);
      pool.beginWrite(wFrame[leaf]);
      boolean done = leafFmt.insertAt(seg, base(leaf), h, key, rowId);
      pool.endWrite(wFrame[leaf]);
      if (!done) {
        // a rebuild or split: readers must not see the pages of the path in between
        for (int d = 0; d < height; d++) {
          pool.beginWrite(wFrame[d]);
        }
        try {
          insertSlow(leaf, h, key, rowId);
        } finally {
          for (int d = 0; d < height; d++) {
            pool.endWrite(wFrame[d]);
          }
        }
      }
      size = size + 1;
    } finally {
      unpinPath();
    }
  }

  /** Inserts into the page at {@code depth} (writable, marked) by rebuilding or splitting it. */
  private void insertSlow(int depth, long h, long key, long value) {
    boolean leaf = depth == root.height() - 1;
    PageFormat fmt = leaf ? leafFmt : innerFmt;
    long base = base(depth);
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
      scratchValues[0] = wPage[0];
      scratchKeys[1] = keyType.max();
      scratchValues[1] = right;
      int page = shadow.allocate();
      buildNewPage(page, KIND_INNER, innerFmt, scratchKeys, scratchValues, 0, 2);
      root = new Root(page, root.height() + 1);
    } else {
      innerFmt.setValue(seg, base(depth - 1), wHandle[depth - 1], right);
      insertSlow(depth - 1, wHandle[depth - 1], separator, wPage[depth]);
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
      descendForWrite(key, false);
      int leaf = height - 1;
      long h = leafFmt.lowerBound(seg, base(leaf), key);
      for (;;) {
        if (h == END) {
          if (!advanceWrite(height)) {
            return false;
          }
          h = leafFmt.first(seg, base(leaf));
          continue;
        }
        if (leafFmt.key(seg, base(leaf), h) != key) {
          return false;
        }
        if (leafFmt.value(seg, base(leaf), h) == rowId) {
          makeWritable(leaf);
          changedSinceCommit = true;
          pool.beginWrite(wFrame[leaf]);
          leafFmt.remove(seg, base(leaf), h);
          pool.endWrite(wFrame[leaf]);
          size = size - 1;
          return true;
        }
        h = leafFmt.next(seg, base(leaf), h);
      }
    } finally {
      unpinPath();
    }
  }

  /** Moves the pinned path to the next leaf page; false at the last one. */
  private boolean advanceWrite(int height) {
    int leaf = height - 1;
    for (int d = leaf - 1; d >= 0; d--) {
      long next = innerFmt.next(seg, base(d), wHandle[d]);
      if (next == END) {
        continue;
      }
      wHandle[d] = next;
      int page = (int) innerFmt.value(seg, base(d), next);
      for (int e = d + 1; e <= leaf; e++) {
        unpinAt(e);
        pinAt(e, page);
        if (e < leaf) {
          wHandle[e] = innerFmt.first(seg, base(e));
          page = (int) innerFmt.value(seg, base(e), wHandle[e]);
        }
      }
      return true;
    }
    return false;
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

  /** A reader's optimistic path: page, frame, stamp and handle per depth. */
  private final class ReadPath extends OptimisticReader {
    final int[] page = new int[MAX_HEIGHT];
    final int[] frame = new int[MAX_HEIGHT];
    final long[] stamp = new long[MAX_HEIGHT];
    final long[] handle = new long[MAX_HEIGHT];
    int height;
    int depth;

    @Override
    protected int tryLookup(long key, RowIds out, int limit) {
      return trySearch(this, key, out, limit);
    }

    /** Whether the path read is still current and still starts at the root. */
    @Override
    protected boolean readValid() {
      return pathValid(this) && root.page() == page[0];
    }
  }

  @Override
  protected OptimisticReader reader() {
    return readPaths.get();
  }

  private boolean valid(ReadPath p, int depth) {
    return pool.validate(p.frame[depth], p.page[depth], p.stamp[depth]);
  }

  private boolean pathValid(ReadPath p) {
    for (int d = 0; d < p.depth; d++) {
      if (!valid(p, d)) {
        return false;
      }
    }
    return true;
  }

  /** Descends to the leaf for {@code key}, validating as it goes; false: retry. */
  private boolean descendRead(ReadPath p, long key) {
    p.depth = 0;
    Root r = root;
    int page = r.page();
    int frame = pool.frameOf(page);
    long stamp = pool.stamp(frame);
    if (stamp < 0 || root != r) {
      return false;
    }
    p.height = r.height();
    for (int d = 0; ; d++) {
      p.page[d] = page;
      p.frame[d] = frame;
      p.stamp[d] = stamp;
      p.depth = d + 1;
      if (d == p.height - 1) {
        return true;
      }
      long base = pool.offset(frame);
      long h = innerFmt.lowerBound(seg, base, key);
      if (h == END) {
        h = innerFmt.last(seg, base);
      }
      p.handle[d] = h;
      if (!descendInto(p, d, h)) {
        return false;
      }
      page = p.page[d + 1];
      frame = p.frame[d + 1];
      stamp = p.stamp[d + 1];
    }
  }

  /** Reads the child at handle {@code h} of depth {@code d} and couples its stamp with d's. */
  private boolean descendInto(ReadPath p, int d, long h) {
    int child = (int) innerFmt.value(seg, pool.offset(p.frame[d]), h);
    int frame = pool.frameOf(child);
    long stamp = pool.stamp(frame);
    if (stamp < 0 || !valid(p, d)) {
      return false;
    }
    p.page[d + 1] = child;
    p.frame[d + 1] = frame;
    p.stamp[d + 1] = stamp;
    p.depth = d + 2;
    return true;
  }

  /** Moves to the next leaf: 1 moved, 0 no next leaf, -1 retry. */
  private int advanceRead(ReadPath p) {
    int leaf = p.height - 1;
    for (int d = leaf - 1; d >= 0; d--) {
      long next = innerFmt.next(seg, pool.offset(p.frame[d]), p.handle[d]);
      if (next == END) {
        if (!valid(p, d)) {
          return -1;
        }
        continue;
      }
      p.handle[d] = next;
      if (!descendInto(p, d, next)) {
        return -1;
      }
      for (int e = d + 1; e < leaf; e++) {
        long first = innerFmt.first(seg, pool.offset(p.frame[e]));
        if (first == END) {
          return valid(p, e) ? 0 : -1;
        }
        p.handle[e] = first;
        if (!descendInto(p, e, first)) {
          return -1;
        }
      }
      return 1;
    }
    return 0;
  }

  private int trySearch(ReadPath p, long key, RowIds out, int limit) {
    if (!descendRead(p, key)) {
      return -1;
    }
    int leaf = p.height - 1;
    long base = pool.offset(p.frame[leaf]);
    long h = leafFmt.lowerBound(seg, base, key);
    int found = 0;
    int guard = 0;
    while (found < limit) {
      if (h == END) {
        if (!valid(p, leaf)) {
          return -1;
        }
        int moved = advanceRead(p);
        if (moved <= 0) {
          return moved < 0 ? -1 : found;
        }
        base = pool.offset(p.frame[leaf]);
        h = leafFmt.first(seg, base);
        guard = 0;
        continue;
      }
      if (++guard > leafFmt.capacity() + 1) {
        return valid(p, leaf) ? corrupt(p.page[leaf]) : -1;
      }
      if (leafFmt.key(seg, base, h) != key) {
        break;
      }
      out.add(leafFmt.value(seg, base, h));
      found++;
      h = leafFmt.next(seg, base, h);
    }
    return valid(p, leaf) ? found : -1;
  }

  private int corrupt(int page) {
    throw new CorruptPageException(file.path(), page, "entry chain longer than the page holds");
  }

  /** A scan of the entries with {@code lo <= key <= hi}, in key order (empty if lo > hi). */
  @Override
  public RangeScan scan(long lo, long hi) {
    checkOpen();
    return new RangeScan(lo, hi);
  }

  /**
   * A range scan returning batches. It first locates both end keys, then, as it moves from leaf
   * page to leaf page, prefetches up to {@link DiskTreeConfig#scanPrefetchPages()} leaf pages
   * ahead (never past the end key's page) through the leaf parents, which serve as the thesis's
   * jump-pointer array: pages not in the buffer pool get a {@code madvise(WILLNEED)}.
   *
   * <p>Thread safety: one thread per scan; it may run concurrently with the tree's writer (see
   * the class comment).
   */
  public final class RangeScan extends AbstractRangeScan {
    private final ReadPath p;
    private long handle;
    private int prefetchCredit;

    private RangeScan(long lo, long hi) {
      this(lo, hi, new ReadPath());
    }

    private RangeScan(long lo, long hi, ReadPath p) {
      super(DiskBPlusTree.this, p, lo, hi);
      this.p = p;
    }

    private void locateEnd() {
      ReadPath q = readPaths.get();
      long key = hi;
      for (int attempt = 0; attempt < 8; attempt++) {
        if (descendRead(q, key) && valid(q, q.height - 1)) {
          endPage = q.page[q.height - 1];
          return;
        }
      }
      endPage = -1; // only a prefetch bound: without it, scans prefetch d pages regardless
    }

    private void prefetchAhead() {
      int d = config.scanPrefetchPages();
      if (d == 0 || p.height < 2 || --prefetchCredit > 0) {
        return;
      }
      prefetchCredit = d;
      int parent = p.height - 2;
      long base = pool.offset(p.frame[parent]);
      long h = p.handle[parent];
      for (int i = 0; i < d; i++) {
        h = innerFmt.next(seg, base, h);
        if (h == END) {
          return;
        }
        int page = (int) innerFmt.value(seg, base, h);
        pool.prefetch(page);
        if (page == endPage) {
          return;
        }
      }
    }

    @Override
    protected int tryNext(long[] keys, long[] rowIds) {
      int leaf;
      long base;
      long h;
      long skip = 0;
      long from = emitted ? lastKey : lo;
      if (!positioned) {
        if (endPage < 0 && !emitted) {
          locateEnd();
        }
        if (!descendRead(p, from)) {
          return -1;
        }
        leaf = p.height - 1;
        base = pool.offset(p.frame[leaf]);
        h = leafFmt.lowerBound(seg, base, from);
        skip = emitted ? lastKeyCount : 0;
        positioned = true;
        prefetchCredit = 0;
        prefetchAhead();
      } else {
        leaf = p.height - 1;
        if (!valid(p, leaf)) {
          return -1;
        }
        base = pool.offset(p.frame[leaf]);
        h = handle;
      }
      int n = 0;
      boolean any = emitted;
      long key = lastKey;
      long count = lastKeyCount;
      int guard = 0;
      for (;;) {
        if (h == END) {
          if (!valid(p, leaf)) {
            return -1;
          }
          emitted = any;
          lastKey = key;
          lastKeyCount = count;
          if (n > 0) {
            handle = END; // validated: hand these out; the next call moves on to the next leaf
            return n;
          }
          int moved = advanceRead(p);
          if (moved == 0) {
            done = true;
            return 0;
          }
          if (moved < 0) {
            positioned = false;
            return -1;
          }
          base = pool.offset(p.frame[leaf]);
          h = leafFmt.first(seg, base);
          guard = 0;
          prefetchAhead();
          continue;
        }
        if (++guard > leafFmt.capacity() + 1) {
          return valid(p, leaf) ? corrupt(p.page[leaf]) : -1;
        }
        long k = leafFmt.key(seg, base, h);
        if (skip > 0 && k == from) {
          skip--;
          h = leafFmt.next(seg, base, h);
          continue;
        }
        skip = 0;
        if (k > hi || n == rowIds.length) {
          if (!valid(p, leaf)) {
            return -1;
          }
          emitted = any;
          lastKey = key;
          lastKeyCount = count;
          handle = h;
          if (k > hi) {
            done = true;
          }
          return n;
        }
        if (keys != null) {
          keys[n] = k;
        }
        rowIds[n++] = leafFmt.value(seg, base, h);
        if (any && k == key) {
          count++;
        } else {
          any = true;
          key = k;
          count = 1;
        }
        h = leafFmt.next(seg, base, h);
      }
    }
  }

  // ---- inspection --------------------------------------------------------------------------

  /** Levels of pages (1: the root is a leaf). */
  @Override
  public int height() {
    return root.height();
  }

  /** The format of leaf pages (the fpB+ in-page tree, slotted page or micro-indexed page). */
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
    Root r = root;
    BitSet reached = new BitSet();
    long total = checkPage(r.page(), r.height() - 1, Long.MIN_VALUE, Long.MAX_VALUE, reached);
    if (total != size) {
      throw new IllegalStateException("tree holds " + total + " entries, size says " + size);
    }
    shadow.checkDisjoint(reached);
  }

  private long checkPage(int page, int levelsBelow, long lo, long hi, BitSet reached) {
    if (reached.get(page)) {
      throw new IllegalStateException("page " + page + " reached twice");
    }
    reached.set(page);
    int frame = pool.pin(page);
    try {
      long base = pool.offset(frame);
      int kind = seg.get(PageFormat.SHORT, base + PageFormat.KIND);
      PageFormat fmt = levelsBelow == 0 ? leafFmt : innerFmt;
      if (kind != (levelsBelow == 0 ? KIND_LEAF : KIND_INNER)) {
        throw new IllegalStateException("page " + page + " has kind " + kind + " at " + levelsBelow
            + " levels above the leaves");
      }
      try {
        fmt.check(seg, base);
      } catch (IllegalStateException e) {
        throw new IllegalStateException("page " + page + ": " + e.getMessage(), e);
      }
      if (levelsBelow == 0) {
        for (long h = fmt.first(seg, base); h != END; h = fmt.next(seg, base, h)) {
          long k = fmt.key(seg, base, h);
          if (k < lo || k > hi || !keyType.fits(k)) {
            throw new IllegalStateException("leaf page " + page + " key " + k + " outside [" + lo + ", " + hi + "]");
          }
        }
        return fmt.count(seg, base);
      }
      if (fmt.count(seg, base) < 1) {
        throw new IllegalStateException("non-leaf page " + page + " has no children");
      }
      long total = 0;
      long low = lo;
      for (long h = fmt.first(seg, base); h != END; h = fmt.next(seg, base, h)) {
        long bound = fmt.key(seg, base, h);
        boolean last = fmt.next(seg, base, h) == END;
        if (bound < low) {
          throw new IllegalStateException("non-leaf page " + page + " bounds out of order");
        }
        total += checkPage((int) fmt.value(seg, base, h), levelsBelow - 1, low, last ? hi : Math.min(bound, hi),
            reached);
        low = bound;
      }
      return total;
    } finally {
      pool.unpin(frame);
    }
  }

  @Override
  public String toString() {
    return "DiskBPlusTree[" + config.layout() + ", " + file.path() + ", " + size + " entries, height "
        + root.height() + ", " + leafFmt + "]";
  }
}
