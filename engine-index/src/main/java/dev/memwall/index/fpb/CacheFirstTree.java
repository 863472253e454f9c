package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.NULL;
import static dev.memwall.index.fpb.NodePointer.lineOf;
import static dev.memwall.index.fpb.NodePointer.nodeAt;
import static dev.memwall.index.fpb.NodePointer.pageOf;
import static dev.memwall.index.fpb.NodePointer.ptr;
import static dev.memwall.index.fpb.PageKinds.PAGE_LEAF;
import static dev.memwall.index.fpb.PageKinds.PAGE_MAP;
import static dev.memwall.index.fpb.PageKinds.PAGE_NODES;
import static dev.memwall.index.fpb.PageKinds.PAGE_OVERFLOW;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.disk.AbstractDiskTree;
import dev.memwall.index.disk.AbstractRangeScan;
import dev.memwall.index.disk.DiskIndex;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.disk.OptimisticReader;
import dev.memwall.index.disk.PageLayout;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.LineFetch;
import dev.memwall.index.page.PageFile;
import dev.memwall.index.page.PageFileFormatException;
import dev.memwall.index.page.PageFileFullException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The cache-first fpB+-tree of seed 002 section 3.3.4 over a {@link PageFile}: a prefetching
 * B+-tree of {@link CacheFirstLayout#nodeLines()}-line nodes placed onto disk pages, durable
 * through a logical-page map with copy on write, read by lock-free readers validated per page.
 * This class is the entry point; the design (placement, updates, durability, concurrency) is
 * described in the package documentation, and the pieces live in package-private classes there.
 *
 * <p><b>Ownership.</b> The tree owns its page file and buffer pool (frames charged to the
 * {@link EngineMemory}); {@link #close} commits and frees them. Writer page images are heap arrays.
 *
 * <p><b>Thread safety.</b> One writer thread ({@link #insert}, {@link #delete}, {@link #sync},
 * {@link #close}, {@link #checkInvariants}) and any number of reader threads ({@link #search},
 * {@link #searchFirst}, {@link #contains}, {@link #scan}), with no lock. A search, searchFirst or
 * contains returns the answer of one published state (it is linearizable); a scan is atomic per
 * batch, not as a whole.
 *
 * <p><b>Bad input.</b> As {@link DiskIndex}: keys outside the key type, unsorted bulkload input or a
 * fill factor outside (0, 1] give {@link IllegalArgumentException} before anything changes; a file
 * of another layout or key type {@link PageFileFormatException}, untouched; a full file
 * {@link PageFileFullException} before the update changes anything; a page failing its checksum or
 * a map naming pages outside the file {@link CorruptPageException} naming file and page.
 */
public final class CacheFirstTree extends AbstractDiskTree {
  private static final int META_LONGS = 13;
  private static final int MAX_HEIGHT = 64;
  private static final long MAP_NEXT = 8; // in a map page: next map page (int), then count (int) at 12
  private static final long MAP_COUNT = 12;

  private final CacheFirstLayout layout;
  private final MemorySegment frames;
  private final int pageBytes;
  /** What readers see: the published view, the install counter and the test probe. */
  final Publication pub = new Publication();
  private final ThreadLocal<Reader> readers = ThreadLocal.withInitial(this::newReader);

  // the writer's working copy of the tree's shape (published through pub.view by installImages)
  private long rootPtr;
  private int height;
  private JumpArray jump = new JumpArray(new int[0], new int[0]);
  private int logicalCount;
  private int overflowPage = -1;

  // writer state
  private final Map<Integer, Image> images = new LinkedHashMap<>();
  private int[] mapChain = new int[0];
  private boolean building; // bulkload under way: no reader can reach the tree yet
  private final long[] pathPtr = new long[MAX_HEIGHT];
  private final int[] pathIdx = new int[MAX_HEIGHT];
  private final long[] scratchKeys;
  private final long[] scratchValues;

  /**
   * Test-only pause points: a white-box test runs writer operations inside a reader's race window,
   * or a reader inside a half-installed update, and checks what the reader returns. Each method
   * runs on the thread that reaches its point; {@code null} (no probe) outside tests. Set with
   * {@link #probe(Probe)} before the threads that reach the points start.
   */
  interface Probe {
    /**
     * A reader is about to enter logical page {@code logical} (descending, walking leaves, or moving
     * to the next page of a scan), before it reads the page's map entry.
     */
    default void beforeEnter(int logical) {}

    /**
     * The writer has copied a page image into a frame and ended the frame's change (its stamp is
     * even again); the update the page belongs to may not be published yet.
     */
    default void afterFrameWrite() {}
  }

  /** Installs a test probe ({@code null}: none); see {@link Probe}. */
  void probe(Probe p) {
    pub.probe = p;
  }

  private CacheFirstTree(PageFile file, DiskTreeConfig config, EngineMemory memory) {
    if (config.layout() != PageLayout.FPB_CACHE_FIRST) {
      throw new IllegalArgumentException("a CacheFirstTree needs the FPB_CACHE_FIRST layout, got " + config.layout());
    }
    // checked before the base class allocates the buffer pool
    CacheFirstLayout nodes = new CacheFirstLayout(config.pageBytes(), config.keyType().bytes(), config.nodeLines());
    this.pageBytes = config.pageBytes();
    this.layout = nodes;
    int scratch = Math.max(nodes.leafCapacity(), nodes.innerCapacity()) + 2;
    this.scratchKeys = new long[scratch];
    this.scratchValues = new long[scratch];
    super(file, config, memory, "cache-first tree");
    this.frames = pool.frames();
  }

  // ---- creating and opening ----------------------------------------------------------------

  /** A new file at {@code path} holding an empty tree (committed). */
  public static CacheFirstTree create(Path path, DiskTreeConfig config, EngineMemory memory) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(memory, "memory");
    return createWith(path, config, memory, tree -> tree.build(SortedEntries.of(new long[0], new long[0]), 1.0));
  }

  /**
   * Bulkloads a new file: leaves get {@code round(fill * capacity)} entries (spread evenly) and fill
   * their leaf pages; non-leaf nodes get {@code round(fill * fanout)} children and are placed by the
   * aggressive placement; the result is committed.
   *
   * @throws IllegalArgumentException if the entries are unsorted, a key does not fit, or the fill
   *     factor is outside (0, 1]; no file is created then
   */
  public static CacheFirstTree bulkload(Path path, DiskTreeConfig config, EngineMemory memory, SortedEntries entries,
      double fill) {
    checkBulkload(config, entries, fill);
    return createWith(path, config, memory, tree -> tree.build(entries, fill));
  }

  private static CacheFirstTree createWith(Path path, DiskTreeConfig config, EngineMemory memory,
      Consumer<CacheFirstTree> init) {
    new CacheFirstLayout(config.pageBytes(), config.keyType().bytes(), config.nodeLines()); // reject bad widths first
    return createAndCommit(path, config, file -> new CacheFirstTree(file, config, memory), tree -> {
      tree.building = true;
      init.accept(tree);
      tree.building = false;
    });
  }

  /**
   * Opens the tree in {@code path}: its layout and key type must be {@code config}'s; the node width
   * is the file's own. Pages written after the last commit are reclaimed.
   *
   * @throws PageFileFormatException if the file is not a page file of this page size, or holds no
   *     tree or a tree of another layout or key type; the file is not changed
   * @throws CorruptPageException if a page of the map fails its checksum or the map is inconsistent
   */
  public static CacheFirstTree open(Path path, DiskTreeConfig config, EngineMemory memory) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(memory, "memory");
    return openWith(path, config, (file, meta) -> {
      checkMeta(path, meta, 3, META_LONGS, PageLayout.FPB_CACHE_FIRST, config.keyType());
      DiskTreeConfig own = config.withNodeLines((int) meta[3]);
      return new CacheFirstTree(file, own, memory);
    }, (tree, meta) -> {
      tree.rootPtr = meta[4];
      tree.height = (int) meta[5];
      tree.size = meta[6];
      tree.logicalCount = (int) meta[7];
      tree.overflowPage = (int) meta[10];
      tree.readMap((int) meta[8], (int) meta[9], (int) meta[11], (int) meta[12]);
      tree.reclaimUnreferenced();
    });
  }

  private long[] meta() {
    return new long[] {DiskIndex.FILE_MAGIC, PageLayout.FPB_CACHE_FIRST.ordinal(), keyType.bytes(),
        layout.nodeLines(), rootPtr, height, size, logicalCount, mapChain.length == 0 ? -1 : mapChain[0],
        mapChain.length, overflowPage, jump.pages().length, 0};
  }

  private int mapIntsPerPage() {
    return (pageBytes - 64) / Integer.BYTES;
  }

  /** Reads the committed map and jump-pointer array (logical count, then leaf pages) from the chain. */
  private void readMap(int head, int chainPages, int leafPages, int unused) {
    int total = logicalCount + leafPages;
    int perPage = mapIntsPerPage();
    if (logicalCount < 1 || leafPages < 1 || chainPages != (total + perPage - 1) / perPage || head < 0) {
      throw new CorruptPageException(file.path(), Math.max(head, 0), "commit record names an inconsistent map");
    }
    int[] values = new int[total];
    mapChain = new int[chainPages];
    int page = head;
    int at = 0;
    for (int c = 0; c < chainPages; c++) {
      if (page < PageFile.FIRST_DATA_PAGE || page >= file.usedPages()) {
        throw new CorruptPageException(file.path(), page, "map chain leaves the file");
      }
      mapChain[c] = page;
      int frame = pool.pin(page);
      try {
        long base = pool.offset(frame);
        int n = frames.get(ValueLayout.JAVA_INT_UNALIGNED, base + MAP_COUNT);
        if (layout.pageKind(frames, base) != PAGE_MAP || n < 0 || n > perPage || at + n > total) {
          throw new CorruptPageException(file.path(), page, "not a page of the tree's map");
        }
        for (int i = 0; i < n; i++) {
          values[at++] = frames.get(ValueLayout.JAVA_INT_UNALIGNED, base + 64 + 4L * i);
        }
        page = frames.get(ValueLayout.JAVA_INT_UNALIGNED, base + MAP_NEXT);
      } finally {
        pool.unpin(frame);
      }
    }
    if (at != total) {
      throw new CorruptPageException(file.path(), head, "map holds " + at + " of " + total + " entries");
    }
    int[] map = Arrays.copyOf(values, Math.max(16, logicalCount));
    BitSet seen = new BitSet();
    for (int p : mapChain) {
      seen.set(p);
    }
    for (int l = 0; l < logicalCount; l++) {
      int p = map[l];
      if (p < PageFile.FIRST_DATA_PAGE || p >= file.usedPages() || seen.get(p)) {
        throw new CorruptPageException(file.path(), Math.max(p, 0), "map sends page " + l + " outside the file or twice");
      }
      seen.set(p);
    }
    int[] leaves = Arrays.copyOfRange(values, logicalCount, total);
    int[] rank = new int[logicalCount];
    Arrays.fill(rank, -1);
    for (int i = 0; i < leaves.length; i++) {
      if (leaves[i] < 0 || leaves[i] >= logicalCount) {
        throw new CorruptPageException(file.path(), head, "jump-pointer array names page " + leaves[i]);
      }
      rank[leaves[i]] = i;
    }
    jump = new JumpArray(leaves, rank);
    pub.view = new View(PageMap.of(map, logicalCount), rootPtr, height, jump, logicalCount);
  }

  /** Every data page neither the map nor its chain names becomes free. */
  private void reclaimUnreferenced() {
    BitSet used = new BitSet();
    for (int p : mapChain) {
      used.set(p);
    }
    for (int l = 0; l < logicalCount; l++) {
      used.set(physOf(l));
    }
    shadow.reclaimAllBut(used);
  }

  // ---- physical pages and images -----------------------------------------------------------


  /** Pages a commit's map needs (with room for the pages an update adds). */
  private int mapPagesNeeded(int extraLogical) {
    long total = (long) logicalCount + extraLogical + jump.pages().length + extraLogical;
    return (int) ((total + mapIntsPerPage() - 1) / mapIntsPerPage());
  }

  /** Physical pages the worst insert may need: copies of the pages it touches and new pages. */
  private int insertPagesBound() {
    int h = height;
    return 4 * h + layout.slots() + 8 + mapPagesNeeded(2 * h + 4);
  }

  private Image image(int logical) {
    Image im = images.get(logical);
    if (im == null) {
      im = new Image(logical, MemorySegment.ofArray(new byte[pageBytes]));
      int phys = physOf(logical);
      int frame = pool.pin(phys);
      try {
        MemorySegment.copy(frames, pool.offset(frame), im.s, 0, pageBytes);
      } finally {
        pool.unpin(frame);
      }
      images.put(logical, im);
    }
    return im;
  }

  private MemorySegment read(long ptr) {
    return image(pageOf(ptr)).s;
  }

  private MemorySegment write(long ptr) {
    Image im = image(pageOf(ptr));
    im.dirty = true;
    return im.s;
  }

  private MemorySegment writePage(int logical) {
    Image im = image(logical);
    im.dirty = true;
    return im.s;
  }

  /** A new logical page of {@code kind}, empty, as a dirty image. */
  private int newPage(int kind) {
    int logical = logicalCount++;
    Image im = new Image(logical, MemorySegment.ofArray(new byte[pageBytes]));
    im.dirty = true;
    layout.setPageKind(im.s, 0, kind);
    images.put(logical, im);
    return logical;
  }

  /** Takes a free slot of {@code page} (which must have one) for a node of {@code kind} at {@code level}. */
  private long allocNode(int page, int kind, int level) {
    MemorySegment s = writePage(page);
    int slot = layout.freeSlot(s, 0);
    if (slot < 0) {
      throw new IllegalStateException("page " + page + " has no free slot");
    }
    layout.setSlotUsed(s, 0, slot, true);
    long ptr = ptr(page, layout.lineOf(slot));
    long node = nodeAt(ptr);
    s.asSlice(node, layout.nodeBytes()).fill((byte) 0);
    layout.setNodeKind(s, node, kind);
    layout.setLevel(s, node, level);
    if (kind == CacheFirstLayout.NODE_LEAF) {
      layout.setNext(s, node, NULL);
    }
    return ptr;
  }

  private void freeNode(long ptr) {
    MemorySegment s = write(ptr);
    layout.setSlotUsed(s, 0, layout.slotOf(lineOf(ptr)), false);
  }

  private boolean hasFreeSlot(int page) {
    return layout.usedSlots(read(ptr(page, 0)), 0) < layout.slots();
  }

  /** The physical page the published map gives logical page {@code logical} (writer side). */
  private int physOf(int logical) {
    return pub.view.map().get(logical);
  }

  /**
   * Installs the update so that a reader sees all of it or none of it. An update that changes one
   * page written since the last commit and nothing else (the common insert or delete) overwrites
   * that page in place between {@link BufferPool#beginWrite} and {@link BufferPool#endWrite}: the
   * frame's stamp alone makes it atomic. Any other update copies every dirty image to a fresh
   * physical page (never one the last commit or the published map references), then publishes the
   * new map together with the root, height, jump-pointer array and page count in one volatile store
   * of {@code view}, and only then retires the physical pages it replaced: pages written since the
   * last commit are dropped from the pool and reused at once, committed ones are freed by the next
   * sync. A failure before the publication (or the in-place copy) changes nothing readers can see;
   * fresh pages go back to the free list.
   */
  private void installImages() {
    if (building) {
      installInPlace();
      return;
    }
    pub.installs = pub.installs + 1; // odd: readers relying on an unchanged tree (Reader#validAll) retry
    VarHandle.storeStoreFence(); // ... if they see any page write or publication below
    try {
      install();
    } finally {
      pub.installs = pub.installs + 1;
    }
  }

  private void install() {
    View published = pub.view;
    PageMap map = published.map();
    int dirty = 0;
    Image only = null;
    for (Image im : images.values()) {
      if (im.dirty) {
        dirty++;
        only = im;
      }
    }
    int onlyPhys = only == null ? -1 : map.get(only.logical);
    if (dirty == 1 && onlyPhys >= 0 && shadow.writtenSinceCommit(onlyPhys) && rootPtr == published.root()
        && height == published.height() && jump == published.jump() && logicalCount == published.pages()) {
      // one uncommitted page changes and nothing else: its frame's stamp alone makes the change atomic
      writeFrame(pool.pin(onlyPhys), only);
      images.clear();
      return;
    }
    int[] logicals = new int[dirty];
    int[] copies = new int[dirty];
    int made = 0;
    try {
      for (Image im : images.values()) {
        if (!im.dirty) {
          continue;
        }
        int copy = shadow.allocate();
        logicals[made] = im.logical;
        copies[made++] = copy;
        writeFrame(pool.pinNew(copy), im);
      }
    } catch (RuntimeException | Error e) {
      for (int i = 0; i < made; i++) {
        shadow.freeNow(copies[i]);
      }
      throw e;
    }
    // the publication: the volatile store orders every page write above before any reader's use
    pub.view = new View(map.with(logicals, copies, made), rootPtr, height, jump, logicalCount);
    images.clear();
    for (int i = 0; i < made; i++) {
      int old = map.get(logicals[i]);
      if (old < 0) {
        continue;
      }
      if (shadow.writtenSinceCommit(old)) {
        shadow.freeNow(old);
      } else {
        shadow.freeAfterCommit(old);
      }
    }
  }

  /** Copies a page image into a pinned frame under an odd stamp, then unpins it. */
  private void writeFrame(int frame, Image image) {
    try {
      pool.beginWrite(frame);
      MemorySegment.copy(image.s, 0, frames, pool.offset(frame), pageBytes);
      pool.endWrite(frame);
    } finally {
      pool.unpin(frame);
    }
    Probe p = pub.probe;
    if (p != null) {
      p.afterFrameWrite();
    }
  }

  /**
   * Bulkload's install, while no reader can hold the tree yet: pages written since the last commit
   * are overwritten in place (so bulkloaded leaf pages stay in file order), others get fresh pages.
   */
  private void installInPlace() {
    PageMap map = pub.view.map();
    int[] logicals = new int[images.size()];
    int[] copies = new int[images.size()];
    int made = 0;
    for (Image im : images.values()) {
      if (!im.dirty) {
        continue;
      }
      int phys = map.get(im.logical);
      int frame;
      if (phys < 0 || !shadow.writtenSinceCommit(phys)) {
        int copy = shadow.allocate();
        if (phys >= 0) {
          shadow.freeAfterCommit(phys);
        }
        frame = pool.pinNew(copy);
        logicals[made] = im.logical;
        copies[made++] = copy;
      } else {
        frame = pool.pin(phys);
      }
      writeFrame(frame, im);
    }
    pub.view = new View(map.with(logicals, copies, made), rootPtr, height, jump, logicalCount);
    images.clear();
  }


  // ---- bulkload ----------------------------------------------------------------------------

  private void build(SortedEntries entries, double fill) {
    long n = entries.size();
    int perLeaf = Math.max(1, Math.min(layout.leafCapacity(), (int) Math.round(fill * layout.leafCapacity())));
    long leafCountL = Math.max(1, (n + perLeaf - 1) / perLeaf);
    if (leafCountL > Integer.MAX_VALUE / 4) {
      throw new IllegalArgumentException(n + " entries need more nodes than a tree holds");
    }
    int leafCount = (int) leafCountL;
    int slots = layout.slots();
    long[] ptrs = new long[leafCount];
    long[] bounds = new long[leafCount];
    int[] leafPages = new int[(leafCount + slots - 1) / slots];
    shadow.reserve(leafPages.length + 2);
    long at = 0;
    MemorySegment s = null;
    int page = -1;
    for (int j = 0; j < leafCount; j++) {
      if (j % slots == 0) {
        if (page >= 0) {
          installImages(); // leaf pages are final once full: keep the heap small
        }
        page = newPage(PAGE_LEAF);
        leafPages[j / slots] = page;
        shadow.reserve(2);
        s = writePage(page);
        layout.setFirstLeafSlot(s, 0, 0);
      }
      long ptr = allocNode(page, CacheFirstLayout.NODE_LEAF, 0);
      long node = nodeAt(ptr);
      long end = n * (j + 1) / leafCount;
      int c = (int) (end - at);
      for (int i = 0; i < c; i++, at++) {
        layout.setKey(s, node, i, entries.key(at));
        layout.setRowId(s, node, i, entries.rowId(at));
      }
      layout.setCount(s, node, c);
      bounds[j] = c > 0 ? layout.key(s, node, c - 1) : keyType.max();
      ptrs[j] = ptr;
      if (j > 0) {
        write(ptrs[j - 1]); // the previous leaf may be on the previous (installed) page
        layout.setNext(read(ptrs[j - 1]), nodeAt(ptrs[j - 1]), ptr);
      }
    }
    int[] rank = new int[logicalCount + 1];
    Arrays.fill(rank, -1);
    for (int i = 0; i < leafPages.length; i++) {
      rank[leafPages[i]] = i;
    }
    jump = new JumpArray(leafPages, rank);
    // the non-leaf levels of the pB+-tree, bottom up: level h node i covers children [from[h][i], from[h][i+1])
    int perInner = Math.max(2, Math.min(layout.innerCapacity(), (int) Math.round(fill * layout.innerCapacity())));
    List<int[]> from = new ArrayList<>();
    List<long[]> levelBounds = new ArrayList<>();
    from.add(null);
    levelBounds.add(bounds);
    int count = leafCount;
    while (count > 1) {
      int parents = (count + perInner - 1) / perInner;
      int[] f = new int[parents + 1];
      long[] b = new long[parents];
      long[] below = levelBounds.get(levelBounds.size() - 1);
      for (int p = 0; p < parents; p++) {
        f[p] = (int) ((long) count * p / parents);
        f[p + 1] = (int) ((long) count * (p + 1) / parents);
        b[p] = below[f[p + 1] - 1];
      }
      from.add(f);
      levelBounds.add(b);
      count = parents;
    }
    int levels = from.size();
    height = levels;
    size = n;
    if (levels == 1) {
      rootPtr = ptrs[0];
      installImages();
      return;
    }
    installImages();
    shadow.reserve(nonLeafPagesBound(from) + 2);
    Placement placement = new Placement(perInner, from, levelBounds, ptrs);
    int top = levels - 1;
    int rootPage = newPage(PAGE_NODES);
    rootPtr = placement.place(top, 0, rootPage, 0);
    installImages();
  }

  private int nonLeafPagesBound(List<int[]> from) {
    long nodes = 0;
    for (int h = 1; h < from.size(); h++) {
      nodes += from.get(h).length - 1;
    }
    return (int) Math.min(Integer.MAX_VALUE / 2, nodes);
  }

  /**
   * The aggressive placement of the bulkloaded non-leaf levels: a page takes a full subtree of
   * {@code fullLevels} in-page levels plus, at in-page level {@code fullLevels}, the children whose
   * bit in the bitmap is set ({@code bitsPerParent} of every node's {@code fanout} positions,
   * spread evenly); other children start new pages, leaf parents go to overflow pages.
   */
  private final class Placement {
    final int fanout;
    final int fullLevels;
    final int bitsPerParent;
    final List<int[]> from;
    final List<long[]> bounds;
    final long[] leafPtrs;

    Placement(int fanout, List<int[]> from, List<long[]> bounds, long[] leafPtrs) {
      this.fanout = fanout;
      this.from = from;
      this.bounds = bounds;
      this.leafPtrs = leafPtrs;
      int slots = layout.slots();
      long nodes = 1;
      long levelNodes = 1;
      int l = 1;
      while (nodes + levelNodes * fanout <= slots) {
        levelNodes *= fanout;
        nodes += levelNodes;
        l++;
      }
      this.fullLevels = l;
      long underflow = slots - nodes;
      this.bitsPerParent = (int) Math.min(fanout, underflow / levelNodes);
    }

    boolean bit(int child) {
      return (long) (child + 1) * bitsPerParent / fanout > (long) child * bitsPerParent / fanout;
    }

    /** Places node {@code i} of level {@code h} on {@code page} at {@code level}, then its subtree. */
    long place(int h, int i, int page, int level) {
      int kind = h == 1 ? CacheFirstLayout.NODE_LEAF_PARENT : CacheFirstLayout.NODE_INNER;
      long ptr = allocNode(page, kind, level);
      int[] f = from.get(h);
      int first = f[i];
      int children = f[i + 1] - first;
      long[] ptrsOfChildren = new long[children];
      for (int k = 0; k < children; k++) {
        int c = first + k;
        if (h == 1) {
          ptrsOfChildren[k] = leafPtrs[c];
          continue;
        }
        int childLevel = level + 1;
        boolean here = (childLevel < fullLevels || (childLevel == fullLevels && bit(k))) && hasFreeSlot(page);
        if (here) {
          ptrsOfChildren[k] = place(h - 1, c, page, childLevel);
        } else if (h - 1 == 1) {
          ptrsOfChildren[k] = placeInOverflow(h - 1, c);
        } else {
          ptrsOfChildren[k] = place(h - 1, c, newPage(PAGE_NODES), 0);
        }
      }
      MemorySegment s = write(ptr);
      long node = nodeAt(ptr);
      for (int k = 0; k < children; k++) {
        layout.setKey(s, node, k, boundOf(h - 1, first + k));
        layout.setChild(s, node, k, ptrsOfChildren[k]);
      }
      layout.setCount(s, node, children);
      return ptr;
    }

    private long boundOf(int level, int index) {
      return bounds.get(level)[index];
    }

    long placeInOverflow(int h, int c) {
      return place(h, c, overflowWithRoom(), 0);
    }
  }

  /** The current overflow page if it has a free slot, else a new one. */
  private int overflowWithRoom() {
    if (overflowPage < 0 || !hasFreeSlot(overflowPage)) {
      overflowPage = newPage(PAGE_OVERFLOW);
    }
    return overflowPage;
  }

  // ---- writer operations -------------------------------------------------------------------

  /** Saved tree fields, restored when an update fails before installing its images. */
  private record Saved(long root, int height, long size, int logicalCount, int overflowPage, JumpArray jump) {}

  private Saved save() {
    return new Saved(rootPtr, height, size, logicalCount, overflowPage, jump);
  }

  private void restore(Saved s) {
    images.clear();
    rootPtr = s.root();
    height = s.height();
    size = s.size();
    logicalCount = s.logicalCount();
    overflowPage = s.overflowPage();
    jump = s.jump();
  }

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
    shadow.reserve(insertPagesBound());
    Saved saved = save();
    try {
      descend(key, true);
      int leafDepth = height - 1;
      long leaf = pathPtr[leafDepth];
      MemorySegment s = read(leaf);
      long node = nodeAt(leaf);
      int n = layout.count(s, node);
      int pos = layout.search(s, node, n, key, true);
      if (n < layout.leafCapacity()) {
        s = write(leaf);
        shiftInsertLeaf(s, node, n, pos, key, rowId);
      } else {
        splitLeafAndInsert(leafDepth, pos, key, rowId);
      }
      installImages();
      size = saved.size() + 1;
      changedSinceCommit = true;
    } catch (RuntimeException | Error e) {
      restore(saved);
      throw e;
    }
  }

  private void shiftInsertLeaf(MemorySegment s, long node, int n, int pos, long key, long rowId) {
    for (int i = n; i > pos; i--) {
      layout.setKey(s, node, i, layout.key(s, node, i - 1));
      layout.setRowId(s, node, i, layout.rowId(s, node, i - 1));
    }
    layout.setKey(s, node, pos, key);
    layout.setRowId(s, node, pos, rowId);
    layout.setCount(s, node, n + 1);
  }

  /** Fills pathPtr/pathIdx from the root to the leaf for {@code key} (strict: past equal keys). */
  private void descend(long key, boolean strict) {
    long p = rootPtr;
    for (int d = 0; d < height - 1; d++) {
      pathPtr[d] = p;
      MemorySegment s = read(p);
      long node = nodeAt(p);
      int n = layout.count(s, node);
      int i = layout.search(s, node, n, key, strict);
      if (i == n) {
        i = n - 1;
      }
      pathIdx[d] = i;
      p = layout.child(s, node, i);
    }
    pathPtr[height - 1] = p;
  }

  private void splitLeafAndInsert(int leafDepth, int pos, long key, long rowId) {
    long leaf = pathPtr[leafDepth];
    if (!hasFreeSlot(pageOf(leaf))) {
      splitLeafPage(leafDepth);
      leaf = pathPtr[leafDepth];
    }
    MemorySegment s = write(leaf);
    long node = nodeAt(leaf);
    int n = layout.count(s, node);
    for (int i = 0; i < n; i++) {
      scratchKeys[i] = layout.key(s, node, i);
      scratchValues[i] = layout.rowId(s, node, i);
    }
    System.arraycopy(scratchKeys, pos, scratchKeys, pos + 1, n - pos);
    System.arraycopy(scratchValues, pos, scratchValues, pos + 1, n - pos);
    scratchKeys[pos] = key;
    scratchValues[pos] = rowId;
    n++;
    int m = n / 2;
    long right = allocNode(pageOf(leaf), CacheFirstLayout.NODE_LEAF, 0);
    MemorySegment rs = write(right);
    long rnode = nodeAt(right);
    for (int i = m; i < n; i++) {
      layout.setKey(rs, rnode, i - m, scratchKeys[i]);
      layout.setRowId(rs, rnode, i - m, scratchValues[i]);
    }
    layout.setCount(rs, rnode, n - m);
    for (int i = 0; i < m; i++) {
      layout.setKey(s, node, i, scratchKeys[i]);
      layout.setRowId(s, node, i, scratchValues[i]);
    }
    layout.setCount(s, node, m);
    layout.setNext(rs, rnode, layout.next(s, node));
    layout.setNext(s, node, right);
    insertIntoParent(leafDepth - 1, leaf, scratchKeys[m - 1], right);
  }

  /** The leaves of leaf page {@code page} in key order. */
  private long[] leafRun(int page) {
    MemorySegment s = read(ptr(page, 0));
    int used = layout.usedSlots(s, 0);
    long[] run = new long[used];
    long p = ptr(page, layout.lineOf(layout.firstLeafSlot(s, 0)));
    for (int i = 0; i < used; i++) {
      if (p == NULL || pageOf(p) != page) {
        throw new CorruptPageException(file.path(), physOf(page), "leaf page " + page + " holds " + used
            + " leaves but links only " + i);
      }
      run[i] = p;
      p = layout.next(s, nodeAt(p));
    }
    return run;
  }

  /**
   * Moves the second half of the leaf run of the leaf at {@code leafDepth} to a new leaf page,
   * rewriting the moved leaves' parent pointers, the sibling links and the jump-pointer array; the
   * path follows the inserting leaf if it moved.
   */
  private void splitLeafPage(int leafDepth) {
    long target = pathPtr[leafDepth];
    int page = pageOf(target);
    long[] run = leafRun(page);
    int k = run.length;
    int half = k / 2;
    int t = -1;
    for (int i = 0; i < k; i++) {
      if (run[i] == target) {
        t = i;
      }
    }
    if (t < 0) {
      throw new CorruptPageException(file.path(), physOf(page), "leaf not in its page's run");
    }
    int newPageId = newPage(PAGE_LEAF);
    MemorySegment ns = writePage(newPageId);
    layout.setFirstLeafSlot(ns, 0, 0);
    MemorySegment os = writePage(page);
    long[] moved = new long[k - half];
    for (int i = half; i < k; i++) {
      moved[i - half] = allocNode(newPageId, CacheFirstLayout.NODE_LEAF, 0);
      MemorySegment.copy(os, nodeAt(run[i]), ns, nodeAt(moved[i - half]), layout.nodeBytes());
    }
    for (int i = half; i < k; i++) {
      if (i + 1 < k) {
        layout.setNext(ns, nodeAt(moved[i - half]), moved[i + 1 - half]);
      }
      freeNode(run[i]);
    }
    layout.setNext(os, nodeAt(run[half - 1]), moved[0]);
    // rewrite the parents' pointers: walk the leaf-parent entries from the target's
    int parentDepth = leafDepth - 1;
    long[] cPtr = Arrays.copyOf(pathPtr, leafDepth);
    int[] cIdx = Arrays.copyOf(pathIdx, leafDepth);
    for (int i = t; i > half; i--) {
      stepEntry(cPtr, cIdx, parentDepth, -1);
    }
    for (int i = t; i < half; i++) {
      stepEntry(cPtr, cIdx, parentDepth, +1);
    }
    for (int i = half; i < k; i++) {
      if (i > half && !stepEntry(cPtr, cIdx, parentDepth, +1)) {
        throw new CorruptPageException(file.path(), physOf(page), "fewer leaf-parent entries than leaves");
      }
      MemorySegment ps = write(cPtr[parentDepth]);
      long pnode = nodeAt(cPtr[parentDepth]);
      if (layout.child(ps, pnode, cIdx[parentDepth]) != run[i]) {
        throw new CorruptPageException(file.path(), physOf(pageOf(cPtr[parentDepth])),
            "leaf-parent entries out of step with the leaves");
      }
      layout.setChild(ps, pnode, cIdx[parentDepth], moved[i - half]);
    }
    if (t >= half) {
      pathPtr[leafDepth] = moved[t - half];
    }
    // the external jump-pointer array gains the new page after the old one
    JumpArray j = jump;
    int r = j.rankOf()[page];
    int[] pages = new int[j.pages().length + 1];
    System.arraycopy(j.pages(), 0, pages, 0, r + 1);
    pages[r + 1] = newPageId;
    System.arraycopy(j.pages(), r + 1, pages, r + 2, j.pages().length - r - 1);
    int[] rank = Arrays.copyOf(j.rankOf(), Math.max(j.rankOf().length, logicalCount));
    for (int i = j.rankOf().length; i < rank.length; i++) {
      rank[i] = -1;
    }
    for (int i = r + 1; i < pages.length; i++) {
      rank[pages[i]] = i;
    }
    jump = new JumpArray(pages, rank);
  }

  /** Moves a cursor over the entries of depth {@code d} by one in {@code dir}; false at either end. */
  private boolean stepEntry(long[] cPtr, int[] cIdx, int d, int dir) {
    int e = d;
    while (e >= 0) {
      MemorySegment s = read(cPtr[e]);
      int n = layout.count(s, nodeAt(cPtr[e]));
      int i = cIdx[e] + dir;
      if (i >= 0 && i < n) {
        cIdx[e] = i;
        break;
      }
      e--;
    }
    if (e < 0) {
      return false;
    }
    for (int f = e + 1; f <= d; f++) {
      cPtr[f] = layout.child(read(cPtr[f - 1]), nodeAt(cPtr[f - 1]), cIdx[f - 1]);
      int n = layout.count(read(cPtr[f]), nodeAt(cPtr[f]));
      cIdx[f] = dir > 0 ? 0 : n - 1;
    }
    return true;
  }

  /**
   * After {@code left} (child {@code pathIdx[d]} of the node at depth {@code d}) split into
   * {@code left} and {@code right} at {@code separator}: the parent entry becomes
   * {@code (separator, left)} followed by {@code (old bound, right)}; a full parent splits.
   */
  private void insertIntoParent(int d, long left, long separator, long right) {
    if (d < 0) {
      growRoot(left, separator, right);
      return;
    }
    long parent = pathPtr[d];
    MemorySegment s = write(parent);
    long node = nodeAt(parent);
    int n = layout.count(s, node);
    int i = pathIdx[d];
    int kind = layout.nodeKind(s, node);
    for (int j = 0; j < n; j++) {
      scratchKeys[j] = layout.key(s, node, j);
      scratchValues[j] = layout.child(s, node, j);
    }
    long bound = scratchKeys[i];
    System.arraycopy(scratchKeys, i + 1, scratchKeys, i + 2, n - i - 1);
    System.arraycopy(scratchValues, i + 1, scratchValues, i + 2, n - i - 1);
    scratchKeys[i] = separator;
    scratchValues[i] = left;
    scratchKeys[i + 1] = Math.max(bound, separator); // a last entry's bound may lie below its keys
    scratchValues[i + 1] = right;
    n++;
    if (n <= layout.innerCapacity()) {
      writeEntries(s, node, 0, n);
      return;
    }
    int m = n / 2;
    int page = pageOf(parent);
    long sibling;
    if (hasFreeSlot(page)) {
      sibling = allocNode(page, kind, layout.level(s, node));
    } else if (kind == CacheFirstLayout.NODE_LEAF_PARENT) {
      sibling = allocNode(overflowWithRoom(), kind, 0);
    } else if (layout.level(s, node) == 0) {
      sibling = splitTopNodePage(parent, m, n);
      s = write(parent);
      writeEntries(s, node, 0, m);
      insertIntoParent(d - 1, parent, scratchKeys[m - 1], sibling);
      return;
    } else {
      int oldPage = pageOf(parent);
      int oldLevel = layout.level(s, node);
      Map<Long, Long> movedTo = relocateForRoom(d);
      parent = pathPtr[d];
      int shift = layout.level(read(parent), nodeAt(parent)) - oldLevel;
      for (int j = 0; j < n; j++) {
        // in-page children moved with the node; one added by this insert (still only in scratch) moves now
        Long moved = movedTo.get(scratchValues[j]);
        if (moved != null) {
          scratchValues[j] = moved;
        } else if (pageOf(scratchValues[j]) == oldPage && kind == CacheFirstLayout.NODE_INNER) {
          scratchValues[j] = moveSubtree(scratchValues[j], oldPage, pageOf(parent), shift, movedTo);
        }
      }
      s = write(parent);
      node = nodeAt(parent);
      sibling = allocNode(pageOf(parent), kind, layout.level(s, node));
    }
    MemorySegment ss = write(sibling);
    s = write(parent);
    long snode = nodeAt(sibling);
    for (int j = m; j < n; j++) {
      layout.setKey(ss, snode, j - m, scratchKeys[j]);
      layout.setChild(ss, snode, j - m, scratchValues[j]);
    }
    layout.setCount(ss, snode, n - m);
    long sep = scratchKeys[m - 1];
    writeEntries(s, nodeAt(parent), 0, m);
    insertIntoParent(d - 1, parent, sep, sibling);
  }

  private void writeEntries(MemorySegment s, long node, int from, int to) {
    for (int j = from; j < to; j++) {
      layout.setKey(s, node, j - from, scratchKeys[j]);
      layout.setChild(s, node, j - from, scratchValues[j]);
    }
    layout.setCount(s, node, to - from);
  }

  /**
   * Figure 3.10(c): the top node {@code node} (in-page level 0) of a full page splits; its second
   * half (scratch entries {@code [m, n)}) becomes the top node of a new page and takes its in-page
   * children (with their in-page subtrees) along. Returns the new node.
   */
  private long splitTopNodePage(long node, int m, int n) {
    int from = pageOf(node);
    int to = newPage(PAGE_NODES);
    int kind = layout.nodeKind(read(node), nodeAt(node));
    long sibling = allocNode(to, kind, 0);
    long[] keys = Arrays.copyOfRange(scratchKeys, m, n);
    long[] children = Arrays.copyOfRange(scratchValues, m, n);
    for (int j = 0; j < children.length; j++) {
      if (pageOf(children[j]) == from && kind == CacheFirstLayout.NODE_INNER) {
        children[j] = moveSubtree(children[j], from, to, 0, null);
      }
    }
    MemorySegment ss = write(sibling);
    long snode = nodeAt(sibling);
    for (int j = 0; j < keys.length; j++) {
      layout.setKey(ss, snode, j, keys[j]);
      layout.setChild(ss, snode, j, children[j]);
    }
    layout.setCount(ss, snode, keys.length);
    return sibling;
  }

  /**
   * Frees room in the full page of the node at depth {@code d} (in-page level >= 1) by moving the
   * in-page subtree of one of the path's nodes in that page below its top to a new page; the path
   * follows the moved nodes. Returns where each moved node went.
   */
  private Map<Long, Long> relocateForRoom(int d) {
    int page = pageOf(pathPtr[d]);
    int top = d;
    while (top > 0 && pageOf(pathPtr[top - 1]) == page) {
      top--;
    }
    int used = layout.usedSlots(read(ptr(page, 0)), 0);
    int best = -1;
    int bestDistance = Integer.MAX_VALUE;
    for (int e = top + 1; e <= d; e++) {
      int sz = subtreeSize(pathPtr[e], page);
      int distance = Math.abs(2 * sz - used);
      if (distance < bestDistance) {
        best = e;
        bestDistance = distance;
      }
    }
    if (best < 0) {
      throw new IllegalStateException("node at depth " + d + " has in-page level >= 1 but no in-page parent");
    }
    int to = newPage(PAGE_NODES);
    Map<Long, Long> movedTo = new HashMap<>();
    int shift = -layout.level(read(pathPtr[best]), nodeAt(pathPtr[best]));
    long moved = moveSubtree(pathPtr[best], page, to, shift, movedTo);
    MemorySegment ps = write(pathPtr[best - 1]);
    layout.setChild(ps, nodeAt(pathPtr[best - 1]), pathIdx[best - 1], moved);
    for (int e = best; e <= d; e++) {
      Long now = movedTo.get(pathPtr[e]);
      if (now == null) {
        throw new IllegalStateException("path node at depth " + e + " did not move with its subtree");
      }
      pathPtr[e] = now;
    }
    return movedTo;
  }

  private int subtreeSize(long ptr, int page) {
    MemorySegment s = read(ptr);
    long node = nodeAt(ptr);
    int size = 1;
    if (layout.nodeKind(s, node) == CacheFirstLayout.NODE_INNER) {
      int n = layout.count(s, node);
      for (int j = 0; j < n; j++) {
        long c = layout.child(s, node, j);
        if (pageOf(c) == page) {
          size += subtreeSize(c, page);
        }
      }
    }
    return size;
  }

  /**
   * Moves the node {@code ptr} on page {@code from} and its in-page descendants to page {@code to},
   * adding {@code shift} to their in-page levels; returns the node's new pointer.
   */
  private long moveSubtree(long ptr, int from, int to, int shift, Map<Long, Long> movedTo) {
    MemorySegment src = read(ptr);
    long node = nodeAt(ptr);
    int kind = layout.nodeKind(src, node);
    long copy = allocNode(to, kind, layout.level(src, node) + shift);
    MemorySegment dst = write(copy);
    long cnode = nodeAt(copy);
    MemorySegment.copy(src, node, dst, cnode, layout.nodeBytes());
    layout.setLevel(dst, cnode, layout.level(src, node) + shift);
    freeNode(ptr);
    if (movedTo != null) {
      movedTo.put(ptr, copy);
    }
    if (kind == CacheFirstLayout.NODE_INNER) {
      int n = layout.count(dst, cnode);
      for (int j = 0; j < n; j++) {
        long c = layout.child(dst, cnode, j);
        if (pageOf(c) == from) {
          layout.setChild(dst, cnode, j, moveSubtree(c, from, to, shift, movedTo));
        }
      }
    }
    return copy;
  }

  /** The root split into {@code left} and {@code right}: a new root above them. */
  private void growRoot(long left, long separator, long right) {
    if (height + 1 >= MAX_HEIGHT) {
      throw new IllegalStateException("tree taller than " + MAX_HEIGHT + " levels");
    }
    int kind = height == 1 ? CacheFirstLayout.NODE_LEAF_PARENT : CacheFirstLayout.NODE_INNER;
    int page = pageOf(left);
    long root;
    if (height > 1 && hasFreeSlot(page)) {
      // the old root's page holds only the old root's in-page subtree (and now its sibling): relevel
      MemorySegment s = writePage(page);
      for (int slot = 0; slot < layout.slots(); slot++) {
        if (layout.slotUsed(s, 0, slot)) {
          long node = (long) layout.lineOf(slot) * CacheFirstLayout.LINE_BYTES;
          layout.setLevel(s, node, layout.level(s, node) + 1);
        }
      }
      root = allocNode(page, kind, 0);
    } else {
      root = allocNode(newPage(PAGE_NODES), kind, 0);
    }
    MemorySegment s = write(root);
    long node = nodeAt(root);
    layout.setKey(s, node, 0, separator);
    layout.setChild(s, node, 0, left);
    layout.setKey(s, node, 1, keyType.max());
    layout.setChild(s, node, 1, right);
    layout.setCount(s, node, 2);
    rootPtr = root;
    height = height + 1;
  }

  /**
   * Removes the first entry {@code (key, rowId)} (in insertion order); false if there is none.
   * Nodes are not merged.
   *
   * @throws IllegalArgumentException if the key does not fit the key type
   */
  @Override
  public boolean delete(long key, long rowId) {
    checkOpen();
    keyType.check(key);
    shadow.reserve(2 + mapPagesNeeded(0));
    Saved saved = save();
    try {
      descend(key, false);
      long leaf = pathPtr[height - 1];
      MemorySegment s = read(leaf);
      int i = layout.search(s, nodeAt(leaf), layout.count(s, nodeAt(leaf)), key, false);
      long guard = 0;
      for (;;) {
        long node = nodeAt(leaf);
        int n = layout.count(s, node);
        if (i >= n) {
          leaf = layout.next(s, node);
          if (leaf == NULL || ++guard > logicalCount * (long) layout.slots()) {
            images.clear();
            return false;
          }
          s = read(leaf);
          i = 0;
          continue;
        }
        if (layout.key(s, node, i) != key) {
          images.clear();
          return false;
        }
        if (layout.rowId(s, node, i) == rowId) {
          s = write(leaf);
          for (int j = i; j < n - 1; j++) {
            layout.setKey(s, node, j, layout.key(s, node, j + 1));
            layout.setRowId(s, node, j, layout.rowId(s, node, j + 1));
          }
          layout.setCount(s, node, n - 1);
          installImages();
          size = saved.size() - 1;
          changedSinceCommit = true;
          return true;
        }
        i++;
      }
    } catch (RuntimeException | Error e) {
      restore(saved);
      throw e;
    }
  }

  /**
   * Commits: everything changed so far survives a crash from now on. Writes the dirty pages, then
   * the map and the jump-pointer array into fresh pages, then the commit record; the physical
   * pages the new commit no longer references become free.
   */
  @Override
  public void sync() {
    checkOpen();
    if (!changedSinceCommit) {
      return;
    }
    int[] leaves = jump.pages();
    int total = logicalCount + leaves.length;
    int perPage = mapIntsPerPage();
    int chainPages = (total + perPage - 1) / perPage;
    shadow.reserve(chainPages);
    int[] chain = new int[chainPages];
    for (int c = 0; c < chainPages; c++) {
      chain[c] = shadow.allocate();
    }
    for (int c = 0; c < chainPages; c++) {
      int frame = pool.pinNew(chain[c]);
      try {
        pool.beginWrite(frame);
        long base = pool.offset(frame);
        layout.setPageKind(frames, base, PAGE_MAP);
        int start = c * perPage;
        int n = Math.min(perPage, total - start);
        frames.set(ValueLayout.JAVA_INT_UNALIGNED, base + MAP_NEXT, c + 1 < chainPages ? chain[c + 1] : -1);
        frames.set(ValueLayout.JAVA_INT_UNALIGNED, base + MAP_COUNT, n);
        for (int i = 0; i < n; i++) {
          int at = start + i;
          int v = at < logicalCount ? physOf(at) : leaves[at - logicalCount];
          frames.set(ValueLayout.JAVA_INT_UNALIGNED, base + 64 + 4L * i, v);
        }
        pool.endWrite(frame);
      } finally {
        pool.unpin(frame);
      }
    }
    int[] previousChain = mapChain;
    mapChain = chain;
    pool.flush();
    file.commit(meta());
    for (int p : previousChain) {
      shadow.freeAfterCommit(p);
    }
    shadow.committed();
    changedSinceCommit = false;
  }

  // ---- readers -----------------------------------------------------------------------------

  /** A new reader of this tree: one per reader thread ({@link #reader}), one per scan. */
  Reader newReader() {
    return new Reader(pub, layout, pool, file);
  }

  @Override
  protected OptimisticReader reader() {
    return readers.get();
  }

  @Override
  public RangeScan scan(long lo, long hi) {
    checkOpen();
    return new RangeScan(this, lo, hi);
  }

  /**
   * A range scan of the cache-first tree in batches, in key order (see {@link CacheFirstScan} for
   * how it reads).
   *
   * <p>Guarantee: keys in order, never a torn entry; each batch is atomic (its entries are exactly
   * those of one published state from where the batch resumed up to its last entry); the scan as
   * a whole is not (batches may come from different states). Entries present throughout the scan
   * are returned exactly once, except that part of a run of equal keys the writer changed while the
   * scan was inside it may be skipped or repeated when the scan resumes by key.
   *
   * <p>Thread safety: one thread per scan; it may run concurrently with the tree's writer.
   */
  public static final class RangeScan extends CacheFirstScan {
    private RangeScan(CacheFirstTree tree, long lo, long hi) {
      super(tree, lo, hi);
    }
  }

  // ---- inspection --------------------------------------------------------------------------

  /** Levels of nodes (1: the root is a leaf). */
  @Override
  public int height() {
    return pub.view.height();
  }

  public CacheFirstLayout layout() {
    return layout;
  }

  /** Logical pages of the tree: leaf, node and overflow pages. */
  public int treePages() {
    return logicalCount;
  }

  /** Pages by kind: {leaf, node (aggressive placement), overflow}. */
  public int[] pagesByKind() {
    checkOpen();
    int[] byKind = new int[3];
    for (int l = 0; l < logicalCount; l++) {
      int kind = layout.pageKind(read(ptr(l, 0)), 0);
      if (kind >= PAGE_LEAF && kind <= PAGE_OVERFLOW) {
        byKind[kind - 1]++;
      }
    }
    images.clear();
    return byKind;
  }

  /**
   * Walks the whole tree (writer thread only) and checks: keys ordered within nodes and within the
   * bounds of their parents' entries; uniform depth; every node reached once and every used slot a
   * reached node (no page holds a lost node, no page is empty); node kinds match page kinds (leaves
   * only in leaf pages, leaf parents in node or overflow pages, overflow nodes at level 0); in-page
   * levels (a child on its parent's page one level below it, elsewhere level 0); the leaf sibling
   * chain follows key order; every leaf page's leaves are one run of consecutive leaves starting at
   * its first-leaf slot; the jump-pointer array lists the leaf pages in order; the entry count; and
   * that no mapped physical page is free or mapped twice.
   *
   * @throws IllegalStateException describing the first violation
   */
  @Override
  public void checkInvariants() {
    checkOpen();
    try {
      Map<Long, Boolean> reached = new HashMap<>();
      List<Long> leaves = new ArrayList<>();
      long total = checkNode(rootPtr, height - 1, Long.MIN_VALUE, Long.MAX_VALUE, -1, -1, reached, leaves);
      if (total != size) {
        throw new IllegalStateException("tree holds " + total + " entries, size says " + size);
      }
      int[] nodesOnPage = new int[logicalCount];
      for (long p : reached.keySet()) {
        nodesOnPage[pageOf(p)]++;
      }
      for (int l = 0; l < logicalCount; l++) {
        int used = layout.usedSlots(read(ptr(l, 0)), 0);
        if (used != nodesOnPage[l] || used == 0) {
          throw new IllegalStateException("page " + l + " has " + used + " used slots but " + nodesOnPage[l]
              + " reachable nodes");
        }
      }
      List<Integer> leafPageOrder = new ArrayList<>();
      for (int i = 0; i < leaves.size(); i++) {
        long leaf = leaves.get(i);
        long next = layout.next(read(leaf), nodeAt(leaf));
        long expected = i + 1 < leaves.size() ? leaves.get(i + 1) : NULL;
        if (next != expected) {
          throw new IllegalStateException("leaf " + Long.toHexString(leaf) + " links to " + Long.toHexString(next)
              + ", not the next leaf " + Long.toHexString(expected));
        }
        int page = pageOf(leaf);
        if (i == 0 || pageOf(leaves.get(i - 1)) != page) {
          if (leafPageOrder.contains(page)) {
            throw new IllegalStateException("leaf page " + page + " holds two separate runs of leaves");
          }
          leafPageOrder.add(page);
          int first = layout.firstLeafSlot(read(leaf), 0);
          if (layout.lineOf(first) != lineOf(leaf)) {
            throw new IllegalStateException("leaf page " + page + " says its first leaf is slot " + first);
          }
        }
      }
      JumpArray j = jump;
      if (j.pages().length != leafPageOrder.size()) {
        throw new IllegalStateException("jump-pointer array lists " + j.pages().length + " leaf pages, tree has "
            + leafPageOrder.size());
      }
      for (int i = 0; i < j.pages().length; i++) {
        if (j.pages()[i] != leafPageOrder.get(i) || j.rankOf()[j.pages()[i]] != i) {
          throw new IllegalStateException("jump-pointer array out of order at " + i);
        }
      }
      BitSet phys = new BitSet();
      for (int l = 0; l < logicalCount; l++) {
        if (phys.get(physOf(l))) {
          throw new IllegalStateException("physical page " + physOf(l) + " mapped twice");
        }
        phys.set(physOf(l));
      }
      shadow.checkDisjoint(phys);
    } finally {
      images.clear();
    }
  }

  private long checkNode(long p, int levelsBelow, long lo, long hi, int parentPage, int parentLevel,
      Map<Long, Boolean> reached, List<Long> leaves) {
    int page = pageOf(p);
    if (page < 0 || page >= logicalCount || layout.slotOf(lineOf(p)) < 0) {
      throw new IllegalStateException("pointer " + Long.toHexString(p) + " names no node slot");
    }
    if (reached.put(p, Boolean.TRUE) != null) {
      throw new IllegalStateException("node " + Long.toHexString(p) + " reached twice");
    }
    MemorySegment s = read(p);
    if (!layout.slotUsed(s, 0, layout.slotOf(lineOf(p)))) {
      throw new IllegalStateException("node " + Long.toHexString(p) + " is in a free slot");
    }
    long node = nodeAt(p);
    int kind = layout.nodeKind(s, node);
    int pageKind = layout.pageKind(s, 0);
    int level = layout.level(s, node);
    int expectedLevel = page == parentPage ? parentLevel + 1 : 0;
    if (level != expectedLevel) {
      throw new IllegalStateException("node " + Long.toHexString(p) + " has in-page level " + level + ", expected "
          + expectedLevel);
    }
    int n = layout.count(s, node);
    if (levelsBelow == 0) {
      if (kind != CacheFirstLayout.NODE_LEAF || pageKind != PAGE_LEAF) {
        throw new IllegalStateException("leaf " + Long.toHexString(p) + " of kind " + kind + " on page kind "
            + pageKind);
      }
      if (n < 0 || n > layout.leafCapacity()) {
        throw new IllegalStateException("leaf " + Long.toHexString(p) + " holds " + n + " entries");
      }
      long previous = Long.MIN_VALUE;
      for (int i = 0; i < n; i++) {
        long k = layout.key(s, node, i);
        if (k < lo || k > hi || k < previous || !keyType.fits(k)) {
          throw new IllegalStateException("leaf " + Long.toHexString(p) + " key " + k + " out of order or outside ["
              + lo + ", " + hi + "]");
        }
        previous = k;
      }
      leaves.add(p);
      return n;
    }
    int expectedKind = levelsBelow == 1 ? CacheFirstLayout.NODE_LEAF_PARENT : CacheFirstLayout.NODE_INNER;
    boolean pageOk = pageKind == PAGE_NODES
        || (pageKind == PAGE_OVERFLOW && expectedKind == CacheFirstLayout.NODE_LEAF_PARENT && level == 0);
    if (kind != expectedKind || !pageOk) {
      throw new IllegalStateException("node " + Long.toHexString(p) + " of kind " + kind + " at " + levelsBelow
          + " levels above the leaves, on page kind " + pageKind + " at level " + level);
    }
    if (n < 1 || n > layout.innerCapacity()) {
      throw new IllegalStateException("non-leaf node " + Long.toHexString(p) + " has " + n + " children");
    }
    long total = 0;
    long low = lo;
    for (int i = 0; i < n; i++) {
      long bound = layout.key(s, node, i);
      if (bound < low) {
        throw new IllegalStateException("non-leaf node " + Long.toHexString(p) + " bounds out of order");
      }
      long child = layout.child(s, node, i);
      total += checkNode(child, levelsBelow - 1, low, i == n - 1 ? hi : Math.min(bound, hi), page, level, reached,
          leaves);
      s = read(p);
      low = bound;
    }
    return total;
  }

  @Override
  public String toString() {
    return "CacheFirstTree[" + file.path() + ", " + size + " entries, height " + height + ", " + layout + "]";
  }
}
