package dev.memwall.index.disk;

import static dev.memwall.index.disk.DiskBPlusTree.END;

import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.PageFormat;
import java.lang.foreign.MemorySegment;

/**
 * How a {@link DiskBPlusTree} scans a key range, behind its public face
 * {@link DiskBPlusTree.RangeScan}. It first locates both end keys, then, as it moves from leaf
 * page to leaf page, prefetches up to {@link DiskTreeConfig#scanPrefetchPages()} leaf pages
 * ahead (never past the end key's page) through the leaf parents, which serve as the thesis's
 * jump-pointer array: pages not in the buffer pool get a {@code madvise(WILLNEED)}. A batch holds
 * the entries of at most one leaf page and is validated before it is handed out; the batch loop,
 * the retries and the resume by key are {@link AbstractRangeScan}'s.
 *
 * <p>Why a class of its own: the scan is the longest read path of the tree. Sealed: its only
 * subclass is the public {@link DiskBPlusTree.RangeScan}. Thread safety: one thread per scan,
 * concurrently with the tree's writer. Bad input: as {@link AbstractRangeScan}.
 */
sealed class DiskTreeScan extends AbstractRangeScan permits DiskBPlusTree.RangeScan {
  private final DiskBPlusTree tree;
  private final ReadPath p;
  private final BufferPool pool;
  private final MemorySegment seg;
  private final PageFormat leafFmt;
  private final PageFormat innerFmt;
  private final int prefetchPages;
  private long handle;
  private int prefetchCredit;

  DiskTreeScan(DiskBPlusTree tree, long lo, long hi) {
    ReadPath p = tree.newReader();
    super(tree, p, lo, hi);
    this.tree = tree;
    this.p = p;
    this.pool = tree.pool;
    this.seg = pool.frames();
    this.leafFmt = tree.leafFormat();
    this.innerFmt = tree.innerFormat();
    this.prefetchPages = tree.config.scanPrefetchPages();
  }

  private void locateEnd() {
    ReadPath q = tree.readPath();
    long key = hi;
    for (int attempt = 0; attempt < 8; attempt++) {
      if (q.descend(key) && q.valid(q.height - 1)) {
        endPage = q.pageAt[q.height - 1];
        return;
      }
    }
    endPage = -1; // only a prefetch bound: without it, scans prefetch d pages regardless
  }

  private void prefetchAhead() {
    int d = prefetchPages;
    if (d == 0 || p.height < 2 || --prefetchCredit > 0) {
      return;
    }
    prefetchCredit = d;
    int parent = p.height - 2;
    long base = pool.offset(p.frameAt[parent]);
    long h = p.handleAt[parent];
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
  protected final int tryNext(long[] keys, long[] rowIds) {
    int leaf;
    long base;
    long h;
    long skip = 0;
    long from = emitted ? lastKey : lo;
    if (!positioned) {
      if (endPage < 0 && !emitted) {
        locateEnd();
      }
      if (!p.descend(from)) {
        return -1;
      }
      leaf = p.height - 1;
      base = pool.offset(p.frameAt[leaf]);
      h = leafFmt.lowerBound(seg, base, from);
      skip = emitted ? lastKeyCount : 0;
      positioned = true;
      prefetchCredit = 0;
      prefetchAhead();
    } else {
      leaf = p.height - 1;
      if (!p.valid(leaf)) {
        return -1;
      }
      base = pool.offset(p.frameAt[leaf]);
      h = handle;
    }
    int n = 0;
    boolean any = emitted;
    long key = lastKey;
    long count = lastKeyCount;
    int guard = 0;
    for (;;) {
      if (h == END) {
        if (!p.valid(leaf)) {
          return -1;
        }
        recordRun(any, key, count);
        if (n > 0) {
          handle = END; // validated: hand these out; the next call moves on to the next leaf
          return n;
        }
        int moved = p.advance();
        if (moved == 0) {
          done = true;
          return 0;
        }
        if (moved < 0) {
          positioned = false;
          return -1;
        }
        base = pool.offset(p.frameAt[leaf]);
        h = leafFmt.first(seg, base);
        guard = 0;
        prefetchAhead();
        continue;
      }
      if (++guard > leafFmt.capacity() + 1) {
        return p.valid(leaf) ? p.corrupt(p.pageAt[leaf]) : -1;
      }
      long k = leafFmt.key(seg, base, h);
      if (skip > 0 && k == from) {
        skip--;
        h = leafFmt.next(seg, base, h);
        continue;
      }
      skip = 0;
      if (k > hi || n == rowIds.length) {
        if (!p.valid(leaf)) {
          return -1;
        }
        recordRun(any, key, count);
        handle = h;
        if (k > hi) {
          done = true;
        }
        return n;
      }
      // The entry handed out and the run of equal keys tracked in locals, as CacheFirstScan's leaf
      // loop does: kept inline in each tree's leaf walk so the per-entry loop makes no call.
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
