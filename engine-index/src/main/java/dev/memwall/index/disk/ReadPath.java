package dev.memwall.index.disk;

import static dev.memwall.index.disk.DiskBPlusTree.END;
import static dev.memwall.index.disk.DiskBPlusTree.MAX_HEIGHT;

import dev.memwall.index.RowIds;
import dev.memwall.index.disk.DiskBPlusTree.Root;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.CorruptPageException;
import dev.memwall.index.page.PageFile;
import dev.memwall.index.page.PageFormat;
import java.lang.foreign.MemorySegment;

/**
 * A lock-free reader of a {@link DiskBPlusTree}: its optimistic path from the root to a leaf (page,
 * frame, version stamp and entry handle per depth), the descent and the move to the next leaf,
 * each child's stamp coupled with a re-validation of its parent, and the point lookup along it.
 *
 * <p>Why a class: the read path of the tree, shared by point lookups and range scans
 * ({@link DiskTreeScan}); the retry around it is {@link OptimisticReader}'s. One thread at a time:
 * the tree keeps one per reader thread, each scan its own. What it reads may be torn until
 * validated: every attempt validates before it answers, a failed validation is a retry, and a
 * validated entry chain longer than a page holds is a {@link CorruptPageException}.
 */
final class ReadPath extends OptimisticReader {
  final int[] pageAt = new int[MAX_HEIGHT];
  final int[] frameAt = new int[MAX_HEIGHT];
  final long[] stampAt = new long[MAX_HEIGHT];
  final long[] handleAt = new long[MAX_HEIGHT];
  int height;
  int depth;
  private final DiskBPlusTree tree;
  private final BufferPool pool;
  private final PageFile file;
  private final MemorySegment seg;
  private final PageFormat leafFmt;
  private final PageFormat innerFmt;

  ReadPath(DiskBPlusTree tree) {
    this.tree = tree;
    this.pool = tree.pool;
    this.file = tree.file;
    this.seg = pool.frames();
    this.leafFmt = tree.leafFormat();
    this.innerFmt = tree.innerFormat();
  }

  /** Whether the path read is still current and still starts at the root. */
  @Override
  protected boolean readValid() {
    return pathValid() && tree.root.page() == pageAt[0];
  }

  /** Whether the page read at {@code depth} is still as read. */
  boolean valid(int depth) {
    return pool.validate(frameAt[depth], pageAt[depth], stampAt[depth]);
  }

  /** Whether every page of the path is still as read. */
  private boolean pathValid() {
    for (int d = 0; d < depth; d++) {
      if (!valid(d)) {
        return false;
      }
    }
    return true;
  }

  /** Descends to the leaf for {@code key}, validating as it goes; false: retry. */
  boolean descend(long key) {
    depth = 0;
    Root r = tree.root;
    int page = r.page();
    int frame = pool.frameOf(page);
    long stamp = pool.stamp(frame);
    if (stamp < 0 || tree.root != r) {
      return false;
    }
    height = r.height();
    for (int d = 0; ; d++) {
      pageAt[d] = page;
      frameAt[d] = frame;
      stampAt[d] = stamp;
      depth = d + 1;
      if (d == height - 1) {
        return true;
      }
      long base = pool.offset(frame);
      long h = innerFmt.lowerBound(seg, base, key);
      if (h == END) {
        h = innerFmt.last(seg, base);
      }
      handleAt[d] = h;
      if (!descendInto(d, h)) {
        return false;
      }
      page = pageAt[d + 1];
      frame = frameAt[d + 1];
      stamp = stampAt[d + 1];
    }
  }

  /** Reads the child at handle {@code h} of depth {@code d} and couples its stamp with d's. */
  private boolean descendInto(int d, long h) {
    int child = (int) innerFmt.value(seg, pool.offset(frameAt[d]), h);
    int frame = pool.frameOf(child);
    long stamp = pool.stamp(frame);
    if (stamp < 0 || !valid(d)) {
      return false;
    }
    pageAt[d + 1] = child;
    frameAt[d + 1] = frame;
    stampAt[d + 1] = stamp;
    depth = d + 2;
    return true;
  }

  /** Moves to the next leaf: 1 moved, 0 no next leaf, -1 retry. */
  int advance() {
    int leaf = height - 1;
    for (int d = leaf - 1; d >= 0; d--) {
      long next = innerFmt.next(seg, pool.offset(frameAt[d]), handleAt[d]);
      if (next == END) {
        if (!valid(d)) {
          return -1;
        }
        continue;
      }
      handleAt[d] = next;
      if (!descendInto(d, next)) {
        return -1;
      }
      for (int e = d + 1; e < leaf; e++) {
        long first = innerFmt.first(seg, pool.offset(frameAt[e]));
        if (first == END) {
          return valid(e) ? 0 : -1;
        }
        handleAt[e] = first;
        if (!descendInto(e, first)) {
          return -1;
        }
      }
      return 1;
    }
    return 0;
  }

  @Override
  protected int tryLookup(long key, RowIds out, int limit) {
    if (!descend(key)) {
      return -1;
    }
    int leaf = height - 1;
    long base = pool.offset(frameAt[leaf]);
    long h = leafFmt.lowerBound(seg, base, key);
    int found = 0;
    int guard = 0;
    while (found < limit) {
      if (h == END) {
        if (!valid(leaf)) {
          return -1;
        }
        int moved = advance();
        if (moved <= 0) {
          return moved < 0 ? -1 : found;
        }
        base = pool.offset(frameAt[leaf]);
        h = leafFmt.first(seg, base);
        guard = 0;
        continue;
      }
      if (++guard > leafFmt.capacity() + 1) {
        return valid(leaf) ? corrupt(pageAt[leaf]) : -1;
      }
      if (leafFmt.key(seg, base, h) != key) {
        break;
      }
      out.add(leafFmt.value(seg, base, h));
      found++;
      h = leafFmt.next(seg, base, h);
    }
    return valid(leaf) ? found : -1;
  }

  /** Throws: the leaf page {@code page}, validated, holds a longer entry chain than a page holds. */
  int corrupt(int page) {
    throw new CorruptPageException(file.path(), page, "entry chain longer than the page holds");
  }
}
