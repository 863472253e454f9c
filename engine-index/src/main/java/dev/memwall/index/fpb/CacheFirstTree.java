package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.ptr;
import static dev.memwall.index.fpb.PageKinds.PAGE_LEAF;
import static dev.memwall.index.fpb.PageKinds.PAGE_OVERFLOW;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.disk.AbstractDiskTree;
import dev.memwall.index.disk.DiskIndex;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.disk.DiskTreeType;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.PageFile;
import dev.memwall.index.page.PageFileFormatException;
import dev.memwall.index.page.PageFileFullException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The cache-first fpB+-tree of seed 002 section 3.3.4 over a {@link PageFile}: a prefetching
 * B+-tree of {@link CacheFirstFormat#nodeLines()}-line nodes placed onto disk pages, durable
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
 * of another tree type or key type {@link PageFileFormatException}, untouched; a full file
 * {@link PageFileFullException} before the update changes anything; a page failing its checksum or
 * a map naming pages outside the file {@link CorruptPageException} naming file and page.
 */
public final class CacheFirstTree extends AbstractDiskTree {
  private final CacheFirstFormat format;
  /** What readers see: the published view, the install counter and the test probe. */
  final Publication pub = new Publication();
  // the writer's side: its working copy of the tree, the committed map, the update paths
  private final WorkingTree work;
  private final MapChain map;
  private final Updates updates;

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
    if (config.treeType() != DiskTreeType.FPB_CACHE_FIRST) {
      throw new IllegalArgumentException("a CacheFirstTree needs the FPB_CACHE_FIRST tree type, got "
          + config.treeType());
    }
    // checked before the base class allocates the buffer pool
    CacheFirstFormat nodes = new CacheFirstFormat(config.pageBytes(), config.keyType().bytes(), config.nodeLines());
    this.format = nodes;
    super(file, config, memory, "cache-first tree");
    this.work = new WorkingTree(pub, nodes, pool, file, shadow);
    this.map = new MapChain(work, keyType);
    this.updates = new Updates(work, map, keyType);
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
    new CacheFirstFormat(config.pageBytes(), config.keyType().bytes(), config.nodeLines()); // reject bad widths first
    return createAndCommit(path, config, file -> new CacheFirstTree(file, config, memory), tree -> {
      tree.work.building = true;
      init.accept(tree);
      tree.work.building = false;
    });
  }

  private void build(SortedEntries entries, double fill) {
    Bulkload.build(work, keyType, entries, fill);
    size = entries.size();
  }

  /**
   * Opens the tree in {@code path}: its tree type and key type must be {@code config}'s; the node width
   * is the file's own. Pages written after the last commit are reclaimed.
   *
   * @throws PageFileFormatException if the file is not a page file of this page size, or holds no
   *     tree or a tree of another tree type or key type; the file is not changed
   * @throws CorruptPageException if a page of the map fails its checksum or the map is inconsistent
   */
  public static CacheFirstTree open(Path path, DiskTreeConfig config, EngineMemory memory) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(memory, "memory");
    return openWith(path, config, (file, meta) -> {
      checkMeta(path, meta, 3, MapChain.META_LONGS, DiskTreeType.FPB_CACHE_FIRST, config.keyType());
      DiskTreeConfig own = config.withNodeLines((int) meta[3]);
      return new CacheFirstTree(file, own, memory);
    }, (tree, meta) -> {
      tree.size = MapChain.size(meta);
      tree.map.load(meta);
    });
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
    updates.insert(key, rowId);
    size = size + 1;
    changedSinceCommit = true;
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
    if (!updates.delete(key, rowId)) {
      return false;
    }
    size = size - 1;
    changedSinceCommit = true;
    return true;
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
    map.commit(size);
    changedSinceCommit = false;
  }

  // ---- readers -----------------------------------------------------------------------------

  @Override
  protected Reader newReader() {
    return new Reader(pub, format, pool, file);
  }

  /**
   * A scan of the entries with {@code lo <= key <= hi}, in key order (empty if lo > hi); see
   * {@link RangeScan} for its guarantee.
   */
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

  public CacheFirstFormat format() {
    return format;
  }

  /** Logical pages of the tree: leaf, node and overflow pages. */
  public int treePages() {
    return work.logicalCount;
  }

  /** Pages by kind: {leaf, node (aggressive placement), overflow}. */
  public int[] pagesByKind() {
    checkOpen();
    int[] byKind = new int[3];
    for (int l = 0; l < work.logicalCount; l++) {
      int kind = format.pageKind(work.read(ptr(l, 0)), 0);
      if (kind >= PAGE_LEAF && kind <= PAGE_OVERFLOW) {
        byKind[kind - 1]++;
      }
    }
    work.dropImages();
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
    new InvariantCheck(work, keyType).check(size);
  }

  @Override
  public String toString() {
    return "CacheFirstTree[" + file.path() + ", " + size + " entries, height " + work.height + ", " + format + "]";
  }
}
