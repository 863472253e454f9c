package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.NULL;
import static dev.memwall.index.fpb.NodePointer.nodeAt;
import static dev.memwall.index.fpb.NodePointer.pageOf;

import dev.memwall.index.disk.AbstractRangeScan;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.PageFile;
import java.lang.foreign.MemorySegment;

/**
 * How the cache-first tree scans a key range, behind its public face
 * {@link CacheFirstTree.RangeScan} (which states the guarantee). It locates both end keys, then,
 * entering each leaf page, prefetches up to {@link DiskTreeConfig#scanPrefetchPages()} leaf pages
 * ahead (never past the end key's page) through the external jump-pointer array of leaf pages,
 * and reads the page's leaves in a tight loop. It does not load the lines of the page's leaf nodes
 * ahead through the slot bitmap (seed 002 section 3.3.5's cache prefetching): without a prefetch
 * instruction that is a demand load of every line before the read, which costs more than it saves
 * (docs/benchmarks/indexes.md, disk trees, has the measurements). Each batch ends at a leaf page
 * boundary or when full and is validated before it is handed out: its leaf page, and any leaf
 * pages passed over before its first entry, still current. The next batch continues from the
 * same position if that page is still current (coupled with the next page when it crosses to it),
 * else it descends again from the last key returned ({@link AbstractRangeScan}).
 *
 * <p>Why a class of its own: the scan is the longest read path of the tree; the batch loop, the
 * retries and the resume state it shares with the other disk tree live in
 * {@link AbstractRangeScan}. Sealed: its only subclass is the public
 * {@link CacheFirstTree.RangeScan}.
 *
 * <p>Thread safety: one thread per scan, concurrently with the tree's writer. Bad input: as
 * {@link AbstractRangeScan}; torn reads are retried, never handed out.
 */
sealed class CacheFirstScan extends AbstractRangeScan permits CacheFirstTree.RangeScan {
  private final Reader r;
  private final Publication pub;
  private final CacheFirstFormat format;
  private final MemorySegment frames;
  private final BufferPool pool;
  private final PageFile file;
  private final int prefetchPages;
  private long leaf;
  private int index;
  private JumpArray advisedIn; // the jump-pointer array the pages advised so far are ranked in
  private int advisedTo; // the last rank advised in it

  CacheFirstScan(CacheFirstTree tree, long lo, long hi) {
    Reader r = tree.newReader();
    super(tree, r, lo, hi);
    this.r = r;
    this.pub = tree.pub;
    this.format = tree.format();
    this.pool = tree.pool();
    this.frames = pool.frames();
    this.file = r.file;
    this.prefetchPages = tree.config().scanPrefetchPages();
  }

  private void locateEnd() {
    long p = r.descend(hi, true);
    endPage = p == NULL || !r.valid() ? -1 : pageOf(p);
  }

  /**
   * Entering leaf page {@code page}: prefetches the leaf pages after it, up to
   * {@link DiskTreeConfig#scanPrefetchPages()} ahead and never past the end key's page, each once
   * per scan (while the jump-pointer array is unchanged), so a page costs one map lookup here.
   */
  private void prefetchAhead(int page) {
    int d = prefetchPages;
    if (d > 0 && page != endPage) {
      View v = pub.view;
      JumpArray j = v.jump();
      int rank = page < j.rankOf().length ? j.rankOf()[page] : -1;
      if (rank >= 0) {
        if (j != advisedIn) {
          advisedIn = j;
          advisedTo = rank;
        }
        int[] pages = j.pages();
        int last = Math.min(rank + d, pages.length - 1);
        for (int at = Math.max(rank, advisedTo) + 1; at <= last; at++) {
          int next = pages[at];
          int phys = v.map().get(next);
          if (phys >= PageFile.FIRST_DATA_PAGE && phys < file.usedPages()) {
            pool.prefetch(phys);
          }
          if (next == endPage) {
            last = pages.length; // nothing past the end key's page
            break;
          }
        }
        advisedTo = Math.max(advisedTo, last);
      }
    }
  }

  @Override
  protected final int tryNext(long[] keys, long[] rowIds) {
    int pages = pub.view.pages(); // a bound for the batch's sanity checks
    long guardLimit = (long) pages * format.slots();
    long p;
    int i;
    long skip = 0;
    long from = emitted ? lastKey : lo;
    boolean any = emitted;
    long key = lastKey;
    long count = lastKeyCount;
    r.forget(); // a batch is one atomic read: the pages it passes over are kept by walk
    if (!positioned) {
      if (endPage < 0 && !emitted) {
        locateEnd();
      }
      p = r.descend(from, false);
      if (p == NULL) {
        return RETRY;
      }
      long node = r.base() + nodeAt(p);
      int n = format.count(frames, node);
      if (n < 0 || n > format.leafCapacity()) {
        return RETRY;
      }
      i = format.search(frames, node, n, from, false);
      skip = emitted ? lastKeyCount : 0;
      prefetchAhead(r.page);
    } else {
      p = leaf;
      i = index;
      if (p == NULL) {
        done = true;
        return 0;
      }
      if (pageOf(p) != r.page) {
        // the last batch ended at a page boundary: p was read on r's page, still r's position
        if (!NodePointer.sane(p, pages, format) || !r.move(pageOf(p))) {
          return RETRY;
        }
        prefetchAhead(r.page);
      }
      // else p and i lie on r's page as validated for the last batch; finish() re-validates it
    }
    int got = 0;
    long guard = 0;
    int capacity = rowIds.length;
    for (;;) {
      long node = r.base() + nodeAt(p);
      int n = format.count(frames, node);
      if (n < 0 || n > format.leafCapacity() || i > n) {
        return RETRY;
      }
      for (; i < n; i++) { // the leaf's entries: a tight loop over its key and row id arrays
        long k = format.key(frames, node, i);
        if (skip > 0) {
          if (k == from) {
            skip--;
            continue;
          }
          skip = 0;
        }
        if (k > hi) {
          return finish(got, p, i, any, key, count, true);
        }
        if (got == capacity) {
          return finish(got, p, i, any, key, count, false);
        }
        // The entry handed out and the run of equal keys tracked in locals, as DiskTreeScan's leaf
        // loop does: kept inline in each tree's leaf walk so the per-entry loop makes no call.
        if (keys != null) {
          keys[got] = k;
        }
        rowIds[got++] = format.rowId(frames, node, i);
        if (any && k == key) {
          count++;
        } else {
          any = true;
          key = k;
          count = 1;
        }
      }
      long next = format.next(frames, node);
      if (next == NULL) {
        return finish(got, NULL, 0, any, key, count, true);
      }
      if (!NodePointer.sane(next, pages, format) || ++guard > guardLimit) {
        return RETRY;
      }
      if (pageOf(next) != r.page) {
        if (got > 0) {
          return finish(got, next, 0, any, key, count, false); // one leaf page per batch
        }
        if (!r.walk(pageOf(next))) {
          return RETRY;
        }
        prefetchAhead(r.page);
      }
      p = next;
      i = 0;
    }
  }

  /**
   * Ends a batch: validates the page it was read from and the pages it passed over to get there,
   * and only then records where the next one starts.
   */
  private int finish(int got, long nextLeaf, int nextIndex, boolean any, long key, long count, boolean end) {
    if (!r.validAll()) {
      return RETRY;
    }
    leaf = nextLeaf;
    index = nextIndex;
    recordRun(any, key, count);
    positioned = true;
    done = end;
    return got;
  }
}
