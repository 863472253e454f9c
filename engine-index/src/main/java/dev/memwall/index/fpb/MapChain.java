package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.PageKinds.PAGE_MAP;

import dev.memwall.index.KeyType;
import dev.memwall.index.disk.DiskIndex;
import dev.memwall.index.disk.DiskTreeType;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.PageFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.BitSet;

/**
 * What a commit of the cache-first tree writes and an open reads back: the commit metadata
 * ({@value #META_LONGS} longs: magic, tree type, key bytes, node lines, root, height, size, logical
 * pages, chain head and length, overflow page, leaf pages) and the chain of map pages it names,
 * which hold the logical-to-physical map followed by the external jump-pointer array. A new chain
 * is written to fresh pages at every commit; the previous one is freed once the commit record is
 * written, so a crash reopens at the last commit.
 *
 * <p>Why a class: the on-disk map format and its checks on open are one thing, apart from how the
 * tree is updated. Writer thread only (opening, committing). Bad input: a chain or map that is
 * inconsistent or names pages outside the file gives {@link CorruptPageException} naming file and
 * page, before the tree is published.
 */
final class MapChain {
  /** Longs of the commit metadata. */
  static final int META_LONGS = 13;
  private static final long MAP_NEXT = 8; // in a map page: next map page (int), then count (int) at 12
  private static final long MAP_COUNT = 12;

  private final WorkingTree w;
  private final KeyType keyType;
  private final CacheFirstFormat format;
  private final BufferPool pool;
  private final PageFile file;
  private final MemorySegment frames;
  private final int pageBytes;
  private int[] chain = new int[0];

  MapChain(WorkingTree w, KeyType keyType) {
    this.w = w;
    this.keyType = keyType;
    this.format = w.format;
    this.pool = w.pool;
    this.file = w.file;
    this.frames = pool.frames();
    this.pageBytes = w.pageBytes;
  }

  /** The commit metadata of the tree as it stands, holding {@code size} entries. */
  long[] meta(long size) {
    return new long[] {DiskIndex.FILE_MAGIC, DiskTreeType.FPB_CACHE_FIRST.ordinal(), keyType.bytes(),
        format.nodeLines(), w.rootPtr, w.height, size, w.logicalCount, chain.length == 0 ? -1 : chain[0],
        chain.length, w.overflowPage, w.jump.pages().length, 0};
  }

  /**
   * Loads the committed tree of {@code meta} (checked by the opener to be a cache-first tree of
   * this key type and node width): its shape, then the map and the jump-pointer array from the
   * chain, which it publishes; then every page neither the map nor its chain names becomes free.
   *
   * @throws CorruptPageException if the chain or the map is inconsistent or leaves the file
   */
  void load(long[] meta) {
    w.rootPtr = meta[4];
    w.height = (int) meta[5];
    w.logicalCount = (int) meta[7];
    w.overflowPage = (int) meta[10];
    readMap((int) meta[8], (int) meta[9], (int) meta[11], (int) meta[12]);
    reclaimUnreferenced();
  }

  /** The entry count in the commit metadata {@code meta}. */
  static long size(long[] meta) {
    return meta[6];
  }

  private int intsPerPage() {
    return (pageBytes - 64) / Integer.BYTES;
  }

  /** Pages a commit's map needs (with room for the pages an update adds). */
  int pagesNeeded(int extraLogical) {
    long total = (long) w.logicalCount + extraLogical + w.jump.pages().length + extraLogical;
    return (int) ((total + intsPerPage() - 1) / intsPerPage());
  }

  /** Reads the committed map and jump-pointer array (logical count, then leaf pages) from the chain. */
  private void readMap(int head, int chainPages, int leafPages, int unused) {
    int total = w.logicalCount + leafPages;
    int perPage = intsPerPage();
    if (w.logicalCount < 1 || leafPages < 1 || chainPages != (total + perPage - 1) / perPage || head < 0) {
      throw new CorruptPageException(file.path(), Math.max(head, 0), "commit record names an inconsistent map");
    }
    int[] values = new int[total];
    chain = new int[chainPages];
    int page = head;
    int at = 0;
    for (int c = 0; c < chainPages; c++) {
      if (page < PageFile.FIRST_DATA_PAGE || page >= file.usedPages()) {
        throw new CorruptPageException(file.path(), page, "map chain leaves the file");
      }
      chain[c] = page;
      int frame = pool.pin(page);
      try {
        long base = pool.offset(frame);
        int n = frames.get(ValueLayout.JAVA_INT_UNALIGNED, base + MAP_COUNT);
        if (format.pageKind(frames, base) != PAGE_MAP || n < 0 || n > perPage || at + n > total) {
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
    int[] map = Arrays.copyOf(values, Math.max(16, w.logicalCount));
    BitSet seen = new BitSet();
    for (int p : chain) {
      seen.set(p);
    }
    for (int l = 0; l < w.logicalCount; l++) {
      int p = map[l];
      if (p < PageFile.FIRST_DATA_PAGE || p >= file.usedPages() || seen.get(p)) {
        throw new CorruptPageException(file.path(), Math.max(p, 0), "map sends page " + l + " outside the file or twice");
      }
      seen.set(p);
    }
    int[] leaves = Arrays.copyOfRange(values, w.logicalCount, total);
    int[] rank = new int[w.logicalCount];
    Arrays.fill(rank, -1);
    for (int i = 0; i < leaves.length; i++) {
      if (leaves[i] < 0 || leaves[i] >= w.logicalCount) {
        throw new CorruptPageException(file.path(), head, "jump-pointer array names page " + leaves[i]);
      }
      rank[leaves[i]] = i;
    }
    w.jump = new JumpArray(leaves, rank);
    w.pub.view = new View(PageMap.of(map, w.logicalCount), w.rootPtr, w.height, w.jump, w.logicalCount);
  }

  /** Every data page neither the map nor its chain names becomes free. */
  private void reclaimUnreferenced() {
    BitSet used = new BitSet();
    for (int p : chain) {
      used.set(p);
    }
    for (int l = 0; l < w.logicalCount; l++) {
      used.set(w.physOf(l));
    }
    w.shadow.reclaimAllBut(used);
  }

  /**
   * Commits the tree as it stands, holding {@code size} entries: writes the map and the
   * jump-pointer array into fresh pages, flushes the dirty pages, then writes the commit record;
   * the physical pages the new commit no longer references (the previous chain included) become
   * free.
   *
   * @throws dev.memwall.index.page.PageFileFullException if the file cannot hold the new chain;
   *     nothing is committed then
   */
  void commit(long size) {
    int[] leaves = w.jump.pages();
    int total = w.logicalCount + leaves.length;
    int perPage = intsPerPage();
    int chainPages = (total + perPage - 1) / perPage;
    w.shadow.reserve(chainPages);
    int[] fresh = new int[chainPages];
    for (int c = 0; c < chainPages; c++) {
      fresh[c] = w.shadow.allocate();
    }
    for (int c = 0; c < chainPages; c++) {
      int frame = pool.pinNew(fresh[c]);
      try {
        pool.beginWrite(frame);
        long base = pool.offset(frame);
        format.setPageKind(frames, base, PAGE_MAP);
        int start = c * perPage;
        int n = Math.min(perPage, total - start);
        frames.set(ValueLayout.JAVA_INT_UNALIGNED, base + MAP_NEXT, c + 1 < chainPages ? fresh[c + 1] : -1);
        frames.set(ValueLayout.JAVA_INT_UNALIGNED, base + MAP_COUNT, n);
        for (int i = 0; i < n; i++) {
          int at = start + i;
          int v = at < w.logicalCount ? w.physOf(at) : leaves[at - w.logicalCount];
          frames.set(ValueLayout.JAVA_INT_UNALIGNED, base + 64 + 4L * i, v);
        }
        pool.endWrite(frame);
      } finally {
        pool.unpin(frame);
      }
    }
    int[] previousChain = chain;
    chain = fresh;
    pool.flush();
    file.commit(meta(size));
    for (int p : previousChain) {
      w.shadow.freeAfterCommit(p);
    }
    w.shadow.committed();
  }
}
