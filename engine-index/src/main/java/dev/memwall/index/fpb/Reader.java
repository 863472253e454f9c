package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.NULL;
import static dev.memwall.index.fpb.NodePointer.nodeAt;
import static dev.memwall.index.fpb.NodePointer.pageOf;

import dev.memwall.index.RowIds;
import dev.memwall.index.disk.OptimisticReader;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.LineFetch;
import dev.memwall.index.page.PageFile;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A lock-free reader of the cache-first tree: its optimistic position (the logical page it is on,
 * the physical page the map gave it, that page's frame and the frame's stamp), the descent to a
 * leaf and the point lookup. The position is valid while the published map still sends the
 * logical page to that physical page and the frame still holds it unchanged (see the package
 * documentation, Concurrency).
 *
 * <p>A read over several leaf pages also keeps the positions it left ({@link #walk}) and
 * re-validates them all at its end ({@link #validAll}): pairwise coupling alone gives an instant
 * per pair of neighbouring pages, not one for the whole read. The arrays are reused, so a read
 * that stays on one leaf page keeps nothing and allocates nothing.
 *
 * <p>Why a class: a reader's position and how it is validated are the heart of the lock-free read
 * path, shared by point lookups and range scans. One thread at a time: the tree keeps one per
 * reader thread, each scan its own. Whatever it reads may be torn until validated: pointers are
 * checked with {@link NodePointer#sane} and counts against the node capacity before use, and a
 * failed check is a retry ({@link #RETRY} or {@link NodePointer#NULL}); an exception thrown while
 * what was read no longer validates is a retry too ({@link OptimisticReader}).
 */
final class Reader extends OptimisticReader {
  int page = -1;
  int phys;
  int frame;
  long frameStamp;
  private final Publication pub;
  private final CacheFirstFormat format;
  private final MemorySegment frames;
  private final BufferPool pool;
  final PageFile file;
  private int kept; // positions left by walk() since forget()
  private long since; // installs, read when the first position was kept
  private int[] keptPage = new int[4];
  private int[] keptPhys = new int[4];
  private int[] keptFrame = new int[4];
  private long[] keptStamp = new long[4];

  Reader(Publication pub, CacheFirstFormat format, BufferPool pool, PageFile file) {
    this.pub = pub;
    this.format = format;
    this.pool = pool;
    this.file = file;
    this.frames = pool.frames();
  }

  /**
   * Moves to logical page {@code logical} through the current published map, reading the frame's
   * stamp; false (position unchanged) if the page is unmapped or its frame is mid-change. Does not
   * re-validate the page it leaves: {@link #move} does.
   */
  boolean enter(int logical) {
    CacheFirstTree.Probe probe = pub.probe;
    if (probe != null) {
      probe.beforeEnter(logical);
    }
    int p = pub.view.map().get(logical); // volatile read of view: acquire
    if (p < PageFile.FIRST_DATA_PAGE || p >= file.usedPages()) {
      return false;
    }
    int f;
    try {
      f = pool.frameOf(p);
    } catch (CorruptPageException e) {
      if (pub.view.map().get(logical) != p) {
        return false; // the page was replaced (and freed) while we loaded it: not a corruption
      }
      throw e;
    }
    long st = pool.stamp(f); // volatile read: the page's bytes are read after it
    if (st < 0) {
      return false;
    }
    page = logical;
    phys = p;
    frame = f;
    frameStamp = st;
    return true;
  }

  /**
   * Stamp coupling: enters {@code logical}, then re-validates the page it came from, so there is
   * an instant at which both pages were as read; false: retry.
   */
  boolean move(int logical) {
    int fromPage = page;
    int fromPhys = phys;
    int fromFrame = frame;
    long fromStamp = frameStamp;
    return enter(logical) && (fromPage < 0 || validate(fromPage, fromPhys, fromFrame, fromStamp));
  }

  /**
   * {@link #move} for a read whose result must be atomic across pages: also keeps the position
   * it leaves, for {@link #validAll}.
   */
  boolean walk(int logical) {
    if (page >= 0) {
      if (kept == 0) {
        since = pub.installs;
      }
      if (kept == keptPage.length) {
        int n = kept * 2;
        keptPage = Arrays.copyOf(keptPage, n);
        keptPhys = Arrays.copyOf(keptPhys, n);
        keptFrame = Arrays.copyOf(keptFrame, n);
        keptStamp = Arrays.copyOf(keptStamp, n);
      }
      keptPage[kept] = page;
      keptPhys[kept] = phys;
      keptFrame[kept] = frame;
      keptStamp[kept] = frameStamp;
      kept++;
    }
    return move(logical);
  }

  /** Drops the positions kept by {@link #walk}: a new atomic read starts. */
  void forget() {
    kept = 0;
  }

  /** Whether everything read on the current page since {@link #enter} is still current. */
  boolean valid() {
    return page < 0 || validate(page, phys, frame, frameStamp);
  }

  @Override
  protected boolean readValid() {
    return valid();
  }

  /**
   * Whether the current page and every page kept by {@link #walk} since {@link #forget} are all
   * still current. Each was current from its entry to its check here, so all were current at the
   * last entry: what was read on them is of one published state. A kept page whose frame was
   * evicted meanwhile (a read over more leaf pages than the pool holds) fails its check though
   * its bytes are intact; then the read still holds if no install began or ended since the first
   * page was kept (each page was current at its coupling, and the published state did not
   * change). Such a read can starve while the writer installs without pause.
   */
  boolean validAll() {
    if (!valid()) {
      return false;
    }
    for (int i = 0; i < kept; i++) {
      if (!validate(keptPage[i], keptPhys[i], keptFrame[i], keptStamp[i])) {
        VarHandle.loadLoadFence(); // the pages were read before installs
        return (since & 1) == 0 && pub.installs == since;
      }
    }
    return true;
  }

  /** The address of the current page's frame in the pool's frames. */
  long base() {
    return pool.offset(frame);
  }

  /**
   * Whether logical page {@code logical}, read from physical page {@code phys} in {@code frame} at
   * {@code stamp}, is still current. The map is checked before the stamp: if the map still names
   * {@code phys} and the frame's stamp is unchanged, the page was not freed meanwhile (freeing drops
   * the frame, which moves its stamp), so it cannot have been remapped away and back either.
   */
  private boolean validate(int logical, int phys, int frame, long stamp) {
    VarHandle.loadLoadFence(); // the page's bytes are read before the map and the stamp
    return pub.view.map().get(logical) == phys && pool.validate(frame, phys, stamp);
  }

  /**
   * Descends to the leaf for {@code key} in the latest published state; the reader is left on the
   * leaf's page. Returns the leaf pointer or {@link NodePointer#NULL} for a retry. Pages are fetched
   * only when a pointer leaves the page, each coupled with the page it leaves.
   */
  long descend(long key, boolean strict) {
    page = -1;
    forget();
    View v = pub.view;
    long p = v.root();
    int h = v.height();
    int pages = v.pages();
    if (!NodePointer.sane(p, pages, format) || !enter(pageOf(p))) {
      return NULL;
    }
    View now = pub.view; // couple the root page with the root pointer and height it was read for
    if (now != v && (now.root() != p || now.height() != h)) {
      return NULL;
    }
    for (int d = 0; d < h - 1; d++) {
      long node = base() + nodeAt(p);
      int n = format.count(frames, node);
      if (n < 1 || n > format.innerCapacity()) {
        return NULL;
      }
      int i = fetchAndSearch(node, n, key, strict);
      if (i == n) {
        i = n - 1;
      }
      long c = format.child(frames, node, i);
      if (!NodePointer.sane(c, pages, format)) {
        return NULL;
      }
      if (pageOf(c) != page && !move(pageOf(c))) {
        return NULL;
      }
      p = c;
    }
    return p;
  }

  /**
   * The position of {@code key} among the {@code n} keys of the node at {@code node}, searched as
   * {@link CacheFirstFormat#search} does, after loading the node's lines (from the byte before it)
   * back to back: every node a lookup searches is fetched whole this way.
   */
  private int fetchAndSearch(long node, int n, long key, boolean strict) {
    LineFetch.consume(LineFetch.touch(frames, node - 1, format.nodeBytes() + 1));
    return format.search(frames, node, n, key, strict);
  }

  /**
   * Descends, walks the run of equal keys across leaf pages, and validates every page it read
   * ({@link #validAll}), so the answer is of one published state.
   */
  @Override
  protected int tryLookup(long key, RowIds out, int limit) {
    long leaf = descend(key, false);
    if (leaf == NULL) {
      return RETRY;
    }
    int found = 0;
    int pages = pub.view.pages();
    long guardLimit = (long) pages * format.slots();
    long node = base() + nodeAt(leaf);
    int n = format.count(frames, node);
    if (n < 0 || n > format.leafCapacity()) {
      return RETRY;
    }
    int i = fetchAndSearch(node, n, key, false);
    long guard = 0;
    while (found < limit) {
      if (i >= n) {
        long next = format.next(frames, node);
        if (next == NULL) {
          break;
        }
        if (!NodePointer.sane(next, pages, format) || ++guard > guardLimit) {
          return RETRY;
        }
        if (pageOf(next) != page && !walk(pageOf(next))) {
          return RETRY;
        }
        node = base() + nodeAt(next);
        n = format.count(frames, node);
        if (n < 0 || n > format.leafCapacity()) {
          return RETRY;
        }
        i = 0;
        continue;
      }
      if (format.key(frames, node, i) != key) {
        break;
      }
      out.add(format.rowId(frames, node, i));
      found++;
      i++;
    }
    return validAll() ? found : RETRY;
  }
}
