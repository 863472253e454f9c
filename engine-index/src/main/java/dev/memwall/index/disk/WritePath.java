package dev.memwall.index.disk;

import static dev.memwall.index.disk.DiskBPlusTree.END;
import static dev.memwall.index.disk.DiskBPlusTree.MAX_HEIGHT;

import dev.memwall.index.disk.DiskBPlusTree.Root;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.PageFormat;
import java.lang.foreign.MemorySegment;

/**
 * The writer's pinned path of a {@link DiskBPlusTree} from the root to a leaf (page, frame and
 * entry handle per depth): the descent for an update, the copy on write of its committed pages
 * (shadow paging: a page the last commit references is never changed; the first change copies it
 * and its ancestors to free pages, and the parent's pointer or the root follows), and the move to
 * the next leaf page.
 *
 * <p>Why a class: the path's pins and copies are the mechanics every update shares; the updates
 * themselves stay in the tree. Writer thread only; it owns the pins it takes and gives them back
 * in {@link #unpinAll}, which every update calls when done, failed or not.
 */
final class WritePath {
  final int[] pageAt = new int[MAX_HEIGHT];
  final int[] frameAt = new int[MAX_HEIGHT];
  final long[] handleAt = new long[MAX_HEIGHT];
  private final boolean[] pinnedAt = new boolean[MAX_HEIGHT];
  private final DiskBPlusTree tree;
  private final BufferPool pool;
  private final MemorySegment seg;
  private final PageFormat innerFmt;
  private final int pageBytes;

  WritePath(DiskBPlusTree tree) {
    this.tree = tree;
    this.pool = tree.pool;
    this.seg = pool.frames();
    this.innerFmt = tree.innerFormat();
    this.pageBytes = tree.config.pageBytes();
  }

  private void pinAt(int depth, int page) {
    pageAt[depth] = page;
    frameAt[depth] = pool.pin(page);
    pinnedAt[depth] = true;
  }

  private void unpinAt(int depth) {
    if (pinnedAt[depth]) {
      pinnedAt[depth] = false;
      pool.unpin(frameAt[depth]);
    }
  }

  /** Unpins every page of the path. */
  void unpinAll() {
    for (int d = 0; d < MAX_HEIGHT; d++) {
      unpinAt(d);
    }
  }

  /** The address of the frame of the page pinned at {@code depth}. */
  long base(int depth) {
    return pool.offset(frameAt[depth]);
  }

  /** Pins the path to the leaf for {@code key} (strict: past equal keys, for inserts). */
  void descend(long key, boolean strict) {
    Root r = tree.root;
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
      handleAt[d] = h;
      page = (int) innerFmt.value(seg, base, h);
    }
  }

  /** Copies every committed page of the path down to {@code depth} (shadow paging). */
  void makeWritable(int depth) {
    for (int d = 0; d <= depth; d++) {
      if (tree.shadow.writtenSinceCommit(pageAt[d])) {
        continue;
      }
      int copy = tree.shadow.allocate();
      int frame = pool.pinNew(copy);
      pool.beginWrite(frame);
      MemorySegment.copy(seg, base(d), seg, pool.offset(frame), pageBytes);
      pool.endWrite(frame);
      unpinAt(d);
      tree.shadow.freeAfterCommit(pageAt[d]);
      pageAt[d] = copy;
      frameAt[d] = frame;
      pinnedAt[d] = true;
      if (d == 0) {
        tree.root = new Root(copy, tree.root.height());
      } else {
        int parent = frameAt[d - 1];
        pool.beginWrite(parent);
        innerFmt.setValue(seg, base(d - 1), handleAt[d - 1], copy);
        pool.endWrite(parent);
      }
    }
  }

  /** Moves the pinned path to the next leaf page; false at the last one. */
  boolean advance(int height) {
    int leaf = height - 1;
    for (int d = leaf - 1; d >= 0; d--) {
      long next = innerFmt.next(seg, base(d), handleAt[d]);
      if (next == END) {
        continue;
      }
      handleAt[d] = next;
      int page = (int) innerFmt.value(seg, base(d), next);
      for (int e = d + 1; e <= leaf; e++) {
        unpinAt(e);
        pinAt(e, page);
        if (e < leaf) {
          handleAt[e] = innerFmt.first(seg, base(e));
          page = (int) innerFmt.value(seg, base(e), handleAt[e]);
        }
      }
      return true;
    }
    return false;
  }

}
