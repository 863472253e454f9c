package dev.memwall.index.disk;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.node.LevelSizes;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.PageFile;
import dev.memwall.index.page.PageFileFormatException;
import dev.memwall.index.page.ShadowPages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the disk trees ({@link DiskBPlusTree}, {@code fpb.CacheFirstTree}) share
 * around their trees: the page file, the buffer pool over it and the {@link ShadowPages} of its
 * pages, the configuration, the entry count, the retry counter, the open/closed lifecycle
 * ({@link #close} commits, then frees the pool and closes the file) and the steps of creating and
 * opening a file that clean up after a failure, and the point lookups ({@link #search},
 * {@link #searchFirst}, {@link #contains}) over each tree's {@link OptimisticReader}. The trees
 * themselves (page formats, commit metadata, {@link #sync}, the read paths) stay in the subclasses.
 *
 * <p>Thread safety: as {@link DiskIndex}. The getters may be called from any thread;
 * {@link #close}, {@link #closeWithoutSync} and the fields marked writer state are the writer's.
 */
public abstract class AbstractDiskTree implements DiskIndex {
  /** The configuration, with the in-page widths the file uses. */
  protected final DiskTreeConfig config;
  /** The key type, {@code config.keyType()}. */
  protected final KeyType keyType;
  protected final PageFile file;
  /** The tree's buffer pool over {@link #file}; frames charged to the tree's {@link EngineMemory}. */
  protected final BufferPool pool;
  /** The file's free pages and pages written since the last commit (writer state). */
  protected final ShadowPages shadow;
  /** Optimistic reads that failed validation and were retried. */
  protected final LongAdder retries = new LongAdder();
  /** Entries in the tree (committed or not); written by the writer only. */
  protected volatile long size;
  /** Whether anything changed since the last commit (writer state): {@link #sync} commits only then. */
  protected boolean changedSinceCommit;
  private volatile boolean closed;
  private final String name;
  private final ThreadLocal<OptimisticReader> readers = ThreadLocal.withInitial(this::newReader);

  /**
   * Takes ownership of {@code file} and allocates the buffer pool over it.
   *
   * @param name what {@link #checkOpen} calls the tree ("disk tree", "cache-first tree")
   */
  protected AbstractDiskTree(PageFile file, DiskTreeConfig config, EngineMemory memory, String name) {
    this.file = file;
    this.config = config;
    this.keyType = config.keyType();
    this.name = name;
    this.pool = new BufferPool(file, config.poolFrames(), memory);
    this.shadow = new ShadowPages(file, pool);
  }

  // ---- creating and opening ----------------------------------------------------------------

  /**
   * Checks a bulkload's arguments before any file is created.
   *
   * @throws IllegalArgumentException if the entries are unsorted, a key does not fit, or the fill
   *     factor is outside (0, 1]
   */
  protected static void checkBulkload(DiskTreeConfig config, SortedEntries entries, double fill) {
    Objects.requireNonNull(entries, "entries");
    LevelSizes.checkFill(fill);
    entries.validate(config.keyType());
  }

  /**
   * Creates the page file at {@code path}, builds the tree over it with {@code construct}, runs
   * {@code init} (the writer builds the initial tree) and commits. If any step fails, the pool and
   * the file are closed and the file is deleted before the failure propagates.
   *
   * @throws java.io.UncheckedIOException if the file exists
   */
  protected static <T extends AbstractDiskTree> T createAndCommit(Path path, DiskTreeConfig config,
      Function<PageFile, T> construct, Consumer<? super T> init) {
    PageFile file = PageFile.create(path, config.pageBytes(), config.maxPages());
    T tree = null;
    try {
      tree = construct.apply(file);
      init.accept(tree);
      tree.changedSinceCommit = true;
      tree.sync();
      return tree;
    } catch (RuntimeException | Error e) {
      if (tree != null) {
        tree.pool.close();
      }
      file.close();
      try {
        Files.deleteIfExists(path); // we created it; leave nothing half-built behind
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Opens the page file at {@code path}, builds the tree over it with {@code construct} (given the
   * file's commit metadata, which it checks first, see {@link #checkMeta}) and hands it to
   * {@code load} with the same metadata (the writer reads the committed tree and reclaims the pages
   * written after the commit). If any step fails, the pool and the file are closed (the file is not
   * changed) before the failure propagates.
   */
  protected static <T extends AbstractDiskTree> T openWith(Path path, DiskTreeConfig config,
      BiFunction<PageFile, long[], T> construct, BiConsumer<? super T, long[]> load) {
    PageFile file = PageFile.open(path, config.pageBytes(), config.maxPages());
    T tree = null;
    try {
      long[] meta = file.committedMeta();
      tree = construct.apply(file, meta);
      load.accept(tree, meta);
      return tree;
    } catch (RuntimeException | Error e) {
      if (tree != null) {
        tree.pool.close();
      }
      file.close();
      throw e;
    }
  }

  /**
   * Checks that {@code meta} is the commit metadata of a disk tree ({@link DiskIndex#FILE_MAGIC},
   * at least {@code headerLongs} longs) of {@code treeType} with {@code keyType} keys and at least
   * {@code metaLongs} longs.
   *
   * @throws PageFileFormatException if not
   */
  protected static void checkMeta(Path path, long[] meta, int headerLongs, int metaLongs, DiskTreeType treeType,
      KeyType keyType) {
    if (meta.length < headerLongs || meta[0] != FILE_MAGIC) {
      throw new PageFileFormatException(path + " holds no committed memwall disk tree");
    }
    DiskTreeType found = meta[1] >= 0 && meta[1] < DiskTreeType.values().length
        ? DiskTreeType.values()[(int) meta[1]] : null;
    if (found != treeType || meta[2] != keyType.bytes() || meta.length < metaLongs) {
      throw new PageFileFormatException(path + " holds a " + found + " tree of " + meta[2]
          + "-byte keys, not the " + treeType + " tree of " + keyType + " keys asked for");
    }
  }

  // ---- inspection --------------------------------------------------------------------------

  @Override
  public final KeyType keyType() {
    return keyType;
  }

  /** Entries in the tree (committed or not). */
  @Override
  public final long size() {
    return size;
  }

  /** The configuration, with the in-page widths (or node width) the file uses. */
  @Override
  public final DiskTreeConfig config() {
    return config;
  }

  /** Pages of the file in use (including free ones, the header pages and a cache-first tree's map). */
  @Override
  public final int filePages() {
    return file.usedPages();
  }

  /** Pages free for reuse now (after a sync: every file page the committed tree does not use). */
  public final int freePages() {
    return shadow.freeCount();
  }

  /** Optimistic reads that failed validation and were retried, since the tree was opened. */
  @Override
  public final long optimisticRetries() {
    return retries.sum();
  }

  @Override
  public final BufferPool pool() {
    return pool;
  }

  // ---- reads -------------------------------------------------------------------------------

  /**
   * A new reader of this tree: one per reader thread ({@link #reader}, created on the thread's
   * first read), one per scan.
   */
  protected abstract OptimisticReader newReader();

  /** The calling thread's reader of this tree (one per thread, reused). */
  protected final OptimisticReader reader() {
    return readers.get();
  }

  /**
   * Appends the row ids of every entry with {@code key}, in insertion order, to {@code out}. The
   * read takes no lock and retries until what it read validates; the subclass says what state the
   * answer is of.
   *
   * @return how many were appended
   */
  @Override
  public final int search(long key, RowIds out) {
    return lookup(key, out, Integer.MAX_VALUE);
  }

  /** The first row id of {@code key} (insertion order), or {@code absent}; read as {@link #search}. */
  @Override
  public final long searchFirst(long key, long absent) {
    RowIds one = reader().one;
    one.clear();
    return lookup(key, one, 1) > 0 ? one.get(0) : absent;
  }

  /** Whether any entry has {@code key}; read as {@link #search}. */
  @Override
  public final boolean contains(long key) {
    RowIds one = reader().one;
    one.clear();
    return lookup(key, one, 1) > 0;
  }

  private int lookup(long key, RowIds out, int limit) {
    checkOpen();
    if (!keyType.fits(key)) {
      return 0;
    }
    return reader().lookup(key, out, limit, retries);
  }

  // ---- scans -------------------------------------------------------------------------------

  /**
   * Checks the arrays of a {@link dev.memwall.index.IndexScan#next(long[], long[])} call.
   *
   * @throws IllegalArgumentException if {@code rowIds} is empty or {@code keys} is shorter
   */
  protected static void checkBatchArrays(long[] keys, long[] rowIds) {
    if (rowIds.length == 0 || (keys != null && keys.length < rowIds.length)) {
      throw new IllegalArgumentException("need a non-empty row id array and a key array at least as long");
    }
  }

  // ---- closing -----------------------------------------------------------------------------

  /** @throws IllegalStateException if the tree is closed */
  protected final void checkOpen() {
    if (closed) {
      throw new IllegalStateException(name + " over " + file.path() + " is closed");
    }
  }

  /** Syncs (commits), then frees the buffer pool and closes the file; idempotent. */
  @Override
  public final void close() {
    if (closed) {
      return;
    }
    try {
      sync();
    } finally {
      closed = true;
      try {
        pool.close();
      } finally {
        file.close();
      }
    }
  }

  /**
   * Closes without committing, as a crash would: what was not synced is lost. For tests and for
   * abandoning a failed batch of updates.
   */
  @Override
  public final void closeWithoutSync() {
    if (!closed) {
      closed = true;
      try {
        pool.close();
      } finally {
        file.close();
      }
    }
  }
}
