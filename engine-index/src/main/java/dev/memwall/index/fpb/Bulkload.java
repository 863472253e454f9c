package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.nodeAt;
import static dev.memwall.index.fpb.PageKinds.PAGE_LEAF;
import static dev.memwall.index.fpb.PageKinds.PAGE_NODES;

import dev.memwall.index.KeyType;
import dev.memwall.index.SortedEntries;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The bulkload of the cache-first tree: leaves get {@code round(fill * capacity)} entries (spread
 * evenly) and fill their leaf pages in key order, each leaf page installed once full to keep the
 * heap small; the non-leaf levels of the pB+-tree are computed bottom up and placed by the
 * aggressive {@link Placement}. Also builds the empty tree of a new file.
 *
 * <p>Why a class: building a tree from sorted input shares nothing with inserting into one except
 * the page images. Writer thread only, while no reader can reach the tree. Bad input: more entries
 * than a tree holds give {@link IllegalArgumentException}; the entries and fill factor are checked
 * by the caller before the file is created.
 */
final class Bulkload {
  private Bulkload() {}

  /**
   * Builds the tree of {@code entries} into the empty {@code w} (whose {@link WorkingTree#building}
   * is set) and installs it; the caller records the entry count.
   */
  static void build(WorkingTree w, KeyType keyType, SortedEntries entries, double fill) {
    CacheFirstFormat format = w.format;
    long n = entries.size();
    int perLeaf = Math.max(1, Math.min(format.leafCapacity(), (int) Math.round(fill * format.leafCapacity())));
    long leafCountL = Math.max(1, (n + perLeaf - 1) / perLeaf);
    if (leafCountL > Integer.MAX_VALUE / 4) {
      throw new IllegalArgumentException(n + " entries need more nodes than a tree holds");
    }
    int leafCount = (int) leafCountL;
    int slots = format.slots();
    long[] ptrs = new long[leafCount];
    long[] bounds = new long[leafCount];
    int[] leafPages = new int[(leafCount + slots - 1) / slots];
    w.shadow.reserve(leafPages.length + 2);
    long at = 0;
    MemorySegment s = null;
    int page = -1;
    for (int j = 0; j < leafCount; j++) {
      if (j % slots == 0) {
        if (page >= 0) {
          w.installImages(); // leaf pages are final once full: keep the heap small
        }
        page = w.newPage(PAGE_LEAF);
        leafPages[j / slots] = page;
        w.shadow.reserve(2);
        s = w.writePage(page);
        format.setFirstLeafSlot(s, 0, 0);
      }
      long ptr = w.allocNode(page, CacheFirstFormat.NODE_LEAF, 0);
      long node = nodeAt(ptr);
      long end = n * (j + 1) / leafCount;
      int c = (int) (end - at);
      for (int i = 0; i < c; i++, at++) {
        format.setKey(s, node, i, entries.key(at));
        format.setRowId(s, node, i, entries.rowId(at));
      }
      format.setCount(s, node, c);
      bounds[j] = c > 0 ? format.key(s, node, c - 1) : keyType.max();
      ptrs[j] = ptr;
      if (j > 0) {
        w.write(ptrs[j - 1]); // the previous leaf may be on the previous (installed) page
        format.setNext(w.read(ptrs[j - 1]), nodeAt(ptrs[j - 1]), ptr);
      }
    }
    int[] rank = new int[w.logicalCount + 1];
    Arrays.fill(rank, -1);
    for (int i = 0; i < leafPages.length; i++) {
      rank[leafPages[i]] = i;
    }
    w.jump = new JumpArray(leafPages, rank);
    // the non-leaf levels of the pB+-tree, bottom up: level h node i covers children [from[h][i], from[h][i+1])
    int perInner = Math.max(2, Math.min(format.innerCapacity(), (int) Math.round(fill * format.innerCapacity())));
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
    w.height = levels;
    if (levels == 1) {
      w.rootPtr = ptrs[0];
      w.installImages();
      return;
    }
    w.installImages();
    w.shadow.reserve(nonLeafPagesBound(from) + 2);
    Placement placement = new Placement(w, perInner, from, levelBounds, ptrs);
    int top = levels - 1;
    int rootPage = w.newPage(PAGE_NODES);
    w.rootPtr = placement.place(top, 0, rootPage, 0);
    w.installImages();
  }

  private static int nonLeafPagesBound(List<int[]> from) {
    long nodes = 0;
    for (int h = 1; h < from.size(); h++) {
      nodes += from.get(h).length - 1;
    }
    return (int) Math.min(Integer.MAX_VALUE / 2, nodes);
  }
}
