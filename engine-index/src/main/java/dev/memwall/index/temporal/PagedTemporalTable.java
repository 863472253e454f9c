package dev.memwall.index.temporal;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.temporal.HeapCharge;
import dev.memwall.core.temporal.LayoutKind;
import dev.memwall.core.temporal.Snapshot;
import dev.memwall.core.temporal.TemporalLayout;
import dev.memwall.core.temporal.ValidValue;
import dev.memwall.core.temporal.Version;
import dev.memwall.index.KeyType;
import dev.memwall.index.disk.DiskIndex;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.disk.DiskTreeType;
import dev.memwall.index.disktrees.DiskIndexes;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.PageFile;
import dev.memwall.index.page.PageFileFormatException;
import dev.memwall.index.page.ShadowPages;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * A temporal table in a page file, in one of the {@link LayoutKind layouts} of Jouini and Jomier:
 * the same {@link TemporalLayout} contract and layout code as the in-memory tables (it runs them
 * over a {@link PagedStore}), with the versions in pages of {@code path} and a disk B+-tree in
 * {@code path + ".index"} from each surrogate to its entity, whose catalog row names its pages. In
 * NSM a page holds entities' runs of rows, in TDSM each attribute sub-relation has pages of its own
 * holding entities' runs of triples, in PSP a page holds entities' sub-pages (Fig. 6); a segment
 * that outgrows its page splits the page, one longer than a page gets overflow pages of its own.
 *
 * <p><b>Pages read.</b> {@link #lastQueryPages} is the paper's cost of the last query: the distinct
 * data pages it read (the surrogate index's descent, the same in every layout, is not counted),
 * beside {@link #lastQueryBytes}, the lines of the segments it read (when counting is on).
 *
 * <p><b>Durability.</b> {@link #sync} commits: the pages written, then a catalog (entities, their
 * clocks and segment pages, the logical page map) in fresh pages named by the data file's commit
 * record, then the index. Pages the last commit references are never overwritten (copy on write),
 * so a crash at any point reopens at the last commit; an index left behind by a crash between the
 * two commits is completed on {@link #open}. {@link #close} syncs. A page failing its checksum, or a
 * catalog or data page that does not fit the table, is a {@link CorruptPageException} naming file
 * and page; a file that is not a temporal table a {@link PageFileFormatException}.
 *
 * <p><b>Memory.</b> Two buffer pools ({@link TemporalFileConfig#poolFrames} frames each) and the
 * catalog's heap arrays, charged to the {@link EngineMemory} until {@link #close}; a refused append
 * (budget, full file) records nothing. Thread safety: none, as for every {@link TemporalLayout}.
 */
public final class PagedTemporalTable implements TemporalLayout {
  /** First long of the data file's commit metadata ("MWTEMPRL"). */
  public static final long FILE_MAGIC = 0x4D57_5445_4D50_524CL;
  /** The catalog format this code reads and writes. */
  public static final int FORMAT_VERSION = 1;
  /** "TCT1" in ASCII: a catalog page. */
  private static final int CATALOG_MAGIC = 0x54435431;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

  private final PageFile file;
  private final BufferPool pool;
  private final ShadowPages shadow;
  private final DiskIndex index;
  private final DataPages pages;
  private final Catalog catalog;
  private final TemporalLayout layout;
  private final LayoutKind kind;
  private int[] catalogPages = new int[0];
  private boolean closed;

  private PagedTemporalTable(PageFile file, DiskIndex index, LayoutKind kind, int attributes,
      TemporalFileConfig config, EngineMemory memory) {
    this.file = file;
    this.index = index;
    this.kind = kind;
    this.pool = new BufferPool(file, config.poolFrames(), memory);
    this.shadow = new ShadowPages(file, pool);
    HeapCharge charge = new HeapCharge(memory);
    try {
      this.pages = new DataPages(file, pool, shadow, charge);
      this.catalog = new Catalog(charge, kind.parts(attributes));
      this.layout = TemporalLayout.over(kind, new PagedStore(pages, catalog, index, charge, pool), attributes);
    } catch (RuntimeException | Error e) { // a budget refusing the catalog: the pool goes back too
      charge.releaseAll();
      pool.close();
      throw e;
    }
  }

  /** The surrogate index of the table in {@code path}. */
  public static Path indexPath(Path path) {
    return path.resolveSibling(path.getFileName() + ".index");
  }

  private static DiskTreeConfig indexConfig(TemporalFileConfig config) {
    return DiskIndexes.chooseConfig(KeyType.INT64, DiskTreeType.SLOTTED, config.pageBytes(), 240, 24)
        .withPoolFrames(config.poolFrames());
  }

  /**
   * A new, committed, empty table of {@code attributes} long attributes in {@code kind} at {@code
   * path} (and its index beside it).
   *
   * @throws IllegalArgumentException if {@code attributes < 1}
   * @throws java.io.UncheckedIOException if either file exists
   * @throws dev.memwall.core.memory.BudgetExceededException if {@code memory} has no room for the
   *     pools; a create that fails leaves neither file behind (a file that was there before stays)
   */
  public static PagedTemporalTable create(Path path, LayoutKind kind, int attributes, TemporalFileConfig config,
      EngineMemory memory) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(memory, "memory");
    if (attributes < 1) {
      throw new IllegalArgumentException("a temporal table needs at least one attribute, not " + attributes);
    }
    Path indexPath = indexPath(path);
    boolean indexWasThere = Files.exists(indexPath);
    PageFile file = PageFile.create(path, config.pageBytes(), config.maxPages());
    DiskIndex index = null;
    PagedTemporalTable table = null;
    try {
      index = DiskIndexes.create(indexPath, indexConfig(config), memory);
      table = new PagedTemporalTable(file, index, kind, attributes, config, memory);
      table.sync();
      return table;
    } catch (RuntimeException | Error e) {
      release(table, index, file);
      deleteQuietly(path, e);
      if (!indexWasThere) {
        deleteQuietly(indexPath, e);
      }
      throw e;
    }
  }

  private static void deleteQuietly(Path path, Throwable cause) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * Opens the table committed in {@code path} (its layout and attributes are the file's), completing
   * its index when a crash left it behind the table.
   *
   * @throws PageFileFormatException if the file is not a temporal table of this format, or its
   *     index names more entities than it holds
   * @throws CorruptPageException if a page fails its checksum or the catalog does not fit the file
   */
  public static PagedTemporalTable open(Path path, TemporalFileConfig config, EngineMemory memory) {
    Objects.requireNonNull(memory, "memory");
    PageFile file = PageFile.open(path, config.pageBytes(), config.maxPages());
    DiskIndex index = null;
    PagedTemporalTable table = null;
    try {
      long[] meta = file.committedMeta();
      if (meta.length != 7 || meta[0] != FILE_MAGIC) {
        throw new PageFileFormatException(path + " is not a memwall temporal table");
      }
      if (meta[1] != FORMAT_VERSION || meta[2] < 0 || meta[2] >= LayoutKind.values().length || meta[3] < 1
          || meta[3] > 4096) {
        throw new PageFileFormatException(path + " is a temporal table of format " + meta[1] + " (this code reads "
            + FORMAT_VERSION + "), layout " + meta[2] + " and " + meta[3] + " attributes");
      }
      index = DiskIndexes.open(indexPath(path), indexConfig(config), memory);
      table = new PagedTemporalTable(file, index, LayoutKind.values()[(int) meta[2]], (int) meta[3], config, memory);
      table.load(meta[4], meta[5]);
      return table;
    } catch (RuntimeException | Error e) {
      release(table, index, file);
      throw e;
    }
  }

  private static void release(PagedTemporalTable table, DiskIndex index, PageFile file) {
    if (table != null) {
      table.closeWithoutSync();
      return;
    }
    if (index != null) {
      index.closeWithoutSync();
    }
    file.close();
  }

  // ---- the catalog ---------------------------------------------------------------------------

  private int catalogCapacity() {
    return (file.pageBytes() - DataPages.HEADER) / Long.BYTES;
  }

  private void load(long first, long longs) {
    if (longs < 0 || longs > (long) catalogCapacity() * file.usedPages()) {
      throw new CorruptPageException(file.path(), first, "commit names a catalog of " + longs + " longs");
    }
    long[] in = new long[(int) longs];
    int got = 0;
    int[] chain = new int[0];
    long page = first;
    while (got < longs) {
      if (page < PageFile.FIRST_DATA_PAGE || page >= file.usedPages() || chain.length >= file.usedPages()) {
        throw new CorruptPageException(file.path(), page, "catalog page " + page + " is not a page of the file");
      }
      chain = Arrays.copyOf(chain, chain.length + 1);
      chain[chain.length - 1] = (int) page;
      int frame = pool.pin((int) page);
      try {
        MemorySegment seg = pool.frames();
        long at = pool.offset(frame);
        int used = seg.get(INT, at + 12);
        if (seg.get(INT, at + 4) != CATALOG_MAGIC || used < 0 || used > catalogCapacity() || used > longs - got) {
          throw new CorruptPageException(file.path(), page, "not a catalog page of this table");
        }
        MemorySegment.copy(seg, LONG, at + DataPages.HEADER, in, got, used);
        got += used;
        page = seg.get(INT, at + 16);
      } finally {
        pool.unpin(frame);
      }
    }
    String wrong = catalog.decode(in, pages, PageFile.FIRST_DATA_PAGE, file.usedPages());
    if (wrong != null) {
      throw new CorruptPageException(file.path(), first, wrong);
    }
    catalogPages = chain;
    BitSet used = new BitSet();
    for (int p : chain) {
      used.set(p);
    }
    pages.markUsed(used);
    shadow.reclaimAllBut(used);
    long indexed = index.size();
    if (indexed > catalog.entities) {
      throw new PageFileFormatException(indexPath(file.path()) + " indexes " + indexed + " entities; the table "
          + file.path() + " holds " + catalog.entities + ": not this table's index");
    }
    if (indexed < catalog.entities) {
      for (int e = (int) indexed; e < catalog.entities; e++) {
        index.insert(catalog.surrogates[e], e);
      }
      index.sync();
    }
  }

  private int writeCatalog() {
    long[] out = catalog.encode(pages);
    int per = catalogCapacity();
    int count = Math.max(1, (out.length + per - 1) / per);
    shadow.reserve(count);
    for (int p : catalogPages) {
      shadow.freeAfterCommit(p); // every catalog page was committed by the sync that wrote it
    }
    int[] chain = new int[count];
    for (int i = 0; i < count; i++) {
      chain[i] = shadow.allocate();
    }
    for (int i = 0; i < count; i++) {
      int frame = pool.pinNew(chain[i]);
      try {
        MemorySegment seg = pool.frames();
        long at = pool.offset(frame);
        int from = i * per;
        int used = Math.min(per, out.length - from);
        pool.beginWrite(frame);
        seg.set(INT, at + 4, CATALOG_MAGIC);
        seg.set(INT, at + 12, used);
        seg.set(INT, at + 16, i + 1 < count ? chain[i + 1] : -1);
        MemorySegment.copy(out, from, seg, LONG, at + DataPages.HEADER, used);
        pool.endWrite(frame);
      } finally {
        pool.unpin(frame);
      }
    }
    catalogPages = chain;
    return out.length;
  }

  // ---- committing and closing ----------------------------------------------------------------

  /** Commits everything appended so far: it survives a crash from now on. */
  public void sync() {
    checkOpen();
    int longs = writeCatalog();
    pool.flush();
    file.commit(new long[] {FILE_MAGIC, FORMAT_VERSION, kind.ordinal(), layout.attributes(), catalogPages[0], longs,
        catalog.entities});
    shadow.committed();
    index.sync();
  }

  /** Commits, then closes both files and gives the memory back; idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    try {
      sync();
    } finally {
      closeWithoutSync();
    }
  }

  /** Closes without committing, as a crash would; idempotent. */
  public void closeWithoutSync() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      layout.close();
      index.closeWithoutSync();
      pool.close();
    } finally {
      file.close();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the temporal table in " + file.path() + " is closed");
    }
  }

  // ---- the table -----------------------------------------------------------------------------

  @Override
  public LayoutKind kind() {
    return kind;
  }

  @Override
  public int attributes() {
    return layout.attributes();
  }

  @Override
  public int entities() {
    return layout.entities();
  }

  @Override
  public void append(long surrogate, long time, long... values) {
    layout.append(surrogate, time, values);
  }

  @Override
  public List<Version> history(long surrogate) {
    pages.startCounting();
    return layout.history(surrogate);
  }

  @Override
  public Snapshot snapshot(long time) {
    pages.startCounting();
    return layout.snapshot(time);
  }

  @Override
  public List<ValidValue> attributeHistory(long surrogate, int attribute) {
    pages.startCounting();
    return layout.attributeHistory(surrogate, attribute);
  }

  /** Distinct data pages the last query read: the paper's cost measure. */
  public int lastQueryPages() {
    return pages.pagesRead();
  }

  /** Data pages holding versions now (the catalog's pages not counted). */
  public int dataPages() {
    return pages.pagesInUse();
  }

  @Override
  public void countTraffic(boolean on) {
    layout.countTraffic(on);
  }

  @Override
  public long lastQueryBytes() {
    return layout.lastQueryBytes();
  }

  @Override
  public long chargedBytes() {
    return layout.chargedBytes();
  }

  /** The data file's path; the index is at {@link #indexPath}. */
  public Path path() {
    return file.path();
  }
}
