package dev.memwall.index.pbtree;

import static dev.memwall.index.pbtree.NodeAccess.INT;
import static dev.memwall.index.pbtree.NodeAccess.LONG;
import static dev.memwall.index.pbtree.NodeAccess.SHORT;
import static dev.memwall.index.pbtree.NodeFormat.INNER_KEYS;
import static dev.memwall.index.pbtree.NodeFormat.KEYNUM;
import static dev.memwall.index.pbtree.NodeFormat.LEAF_KEYS;
import static dev.memwall.index.pbtree.NodeFormat.NEXT;

import dev.memwall.index.RowIds;
import dev.memwall.index.node.NodeFetch;
import dev.memwall.index.node.NodeStamps;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * The lookups of a tree with {@link PbTreeConfig#optimisticReaders()}, which run on any number of
 * threads beside the single writer without taking locks: a reader reads a node's version stamp
 * ({@link NodeStamps}), the node, the next node's stamp, then checks the first stamp again (lock
 * coupling without locks), and restarts from the root, counting a retry, when anything changed.
 * Each lookup thus sees the tree as it was at one instant during the call.
 *
 * <p>It exists apart from {@link PointLookups} and {@link BatchedLookup} so that the validation
 * every step here carries stays out of the paths of trees without optimistic readers.
 *
 * <p>Ownership: reads the tree's nodes and stamps, which the tree owns and closes; owns its retry
 * counter and a per-thread scratch list for {@link #searchFirst}. Thread safety: any number of
 * threads, beside one writer that marks every node it changes ({@link TreeWriter}); node regions
 * the pool grows out of stay mapped until the tree is closed, so a stale segment is still
 * readable. Bad input: the tree checks that it is open and that the keys fit before calling; what
 * a torn read gets wrong never validates, and an {@link IndexOutOfBoundsException} from a read
 * that still validates is rethrown.
 */
final class OptimisticReads {
  private final PrefetchingBPlusTree tree;
  private final NodeAccess nodes;
  private final NodeStamps stamps;
  private final LongAdder retries = new LongAdder();
  private final ThreadLocal<RowIds> firstScratch = ThreadLocal.withInitial(() -> new RowIds(1));

  OptimisticReads(PrefetchingBPlusTree tree, NodeStamps stamps) {
    this.tree = tree;
    this.nodes = tree.nodes;
    this.stamps = stamps;
  }

  /**
   * Appends at most {@code limit} row ids of {@code key} to {@code out} (may be null: count only)
   * from one validated traversal, retrying until one validates; returns how many.
   */
  int search(long key, RowIds out, int limit) {
    int start = out == null ? 0 : out.size();
    while (true) {
      int found = tryOnce(nodes.pool.segmentAcquire(), stamps.region(), key, out, limit);
      if (found >= 0) {
        return found;
      }
      if (out != null) {
        out.truncate(start);
      }
      retries.increment();
      Thread.onSpinWait();
    }
  }

  /** Whether node {@code node} still has stamp {@code v} and neither region has moved. */
  private boolean valid(MemorySegment s, MemorySegment st, int node, long v) {
    return stamps.validate(st, node, v) && s == nodes.pool.segmentAcquire();
  }

  /**
   * One optimistic traversal: the row ids found, or -1 when a validation failed (what was read
   * may then be torn: node key counts are clamped so reads stay inside the node).
   */
  private int tryOnce(MemorySegment s, MemorySegment st, long key, RowIds out, int limit) {
    long rw = tree.rootWord;
    int node = (int) rw;
    int levels = (int) (rw >>> 32);
    long v = 1; // odd until the root's stamp is read: a failure before that never validates
    boolean atRoot = true; // the root's validation also checks that the root has not changed
    long sink = 0;
    try {
      v = NodeStamps.readStamp(st, node); // the root may be newer than the regions read before
      if ((v & 1) != 0) {
        return -1;
      }
      for (int level = levels - 1; level > 0; level--) {
        long off = (long) node * nodes.nodeBytes;
        if (nodes.fetch) {
          sink += nodes.touchRest(s, off);
        }
        int n = Math.min(s.get(SHORT, off + KEYNUM), nodes.innerKeys);
        int child = s.get(INT, off + nodes.childOffset + 4L * nodes.bound(s, off + INNER_KEYS, n, key, false));
        long cv = NodeStamps.readStamp(st, child);
        if (!valid(s, st, node, v) || (atRoot && tree.rootWord != rw) || (cv & 1) != 0) {
          return -1;
        }
        atRoot = false;
        node = child;
        v = cv;
      }
      long off = (long) node * nodes.nodeBytes;
      if (nodes.fetch) {
        sink += nodes.touchRest(s, off);
      }
      int n = Math.min(s.get(SHORT, off + KEYNUM), nodes.leafEntries);
      int p = nodes.bound(s, off + LEAF_KEYS, n, key, false);
      int found = 0;
      while (true) {
        for (; p < n; p++) {
          if (found == limit || nodes.leafKey(s, off, p) != key) {
            NodeFetch.consume(sink);
            return valid(s, st, node, v) && (!atRoot || tree.rootWord == rw) ? found : -1;
          }
          if (out != null) {
            out.add(s.get(LONG, off + nodes.rowIdOffset + 8L * p));
          }
          found++;
        }
        int next = s.get(INT, off + NEXT);
        long nv = next < 0 ? 0 : NodeStamps.readStamp(st, next);
        if (!valid(s, st, node, v) || (atRoot && tree.rootWord != rw) || (nv & 1) != 0) {
          return -1;
        }
        if (next < 0) {
          NodeFetch.consume(sink);
          return found;
        }
        atRoot = false;
        node = next;
        v = nv;
        off = (long) node * nodes.nodeBytes;
        n = Math.min(s.get(SHORT, off + KEYNUM), nodes.leafEntries);
        p = 0;
      }
    } catch (IndexOutOfBoundsException e) {
      if (valid(s, st, node, v)) {
        throw e; // not a torn read
      }
      return -1;
    }
  }

  /** The row id of the first entry under {@code key}, or {@code absent} if there is none. */
  long searchFirst(long key, long absent) {
    RowIds first = firstScratch.get();
    first.clear();
    return search(key, first, 1) > 0 ? first.get(0) : absent;
  }

  /**
   * Looks up {@code keys[0 .. count)} one by one, each validated on its own, appending the row ids
   * of key {@code i} to {@code out} as {@code out[offsets[i] .. offsets[i + 1])}.
   */
  void lookupBatch(long[] keys, int count, int[] offsets, RowIds out) {
    for (int i = 0; i < count; i++) {
      offsets[i] = out.size();
      search(keys[i], out, Integer.MAX_VALUE);
    }
    offsets[count] = out.size();
  }

  /** Lookups that failed validation and were retried, since the tree was created. */
  long retries() {
    return retries.sum();
  }
}
