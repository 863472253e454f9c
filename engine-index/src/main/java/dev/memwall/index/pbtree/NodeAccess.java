package dev.memwall.index.pbtree;

import static dev.memwall.index.pbtree.NodeFormat.INNER_KEYS;
import static dev.memwall.index.pbtree.NodeFormat.KEYNUM;
import static dev.memwall.index.pbtree.NodeFormat.LEAF_KEYS;
import static dev.memwall.index.pbtree.NodeFormat.LEVEL;
import static dev.memwall.index.pbtree.NodeFormat.NEXT;

import dev.memwall.index.KeyType;
import dev.memwall.index.node.NodeFetch;
import dev.memwall.index.node.NodeKeys;
import dev.memwall.index.node.NodePool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One pB+-tree's nodes: the {@link NodePool} they live in, the numbers of their
 * {@link NodeFormat} in final fields, and the reads and writes on a node that every part of the
 * tree shares (keys, the branch-free key search, whole-node fetches, a fresh leaf's header).
 *
 * <p>It exists so that the parts of {@link PrefetchingBPlusTree} kept in their own files (lookups,
 * the writer, range scans, the bulkload, the invariant check) read one copy of the node geometry
 * instead of each copying the format. Its methods are small and the class final, so the JIT can
 * inline them into the per-key loops as it did the tree's own private methods.
 *
 * <p>Ownership: the pool belongs to the tree, which closes it; this class only reads and writes
 * nodes. Thread safety: immutable; a method is as safe as the node memory it touches (readers may
 * share it, writes are the single writer's). Bad input: nothing is checked beyond the segment's
 * bounds; callers pass node offsets inside the pool and positions within a node's capacity.
 */
final class NodeAccess {
  static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;

  final NodePool pool;
  /** Whether keys take 8 bytes (else 4). */
  final boolean int64;
  /** Whether a search fetches the whole node before searching it (only with more than one line). */
  final boolean fetch;
  final int lines;
  final long nodeBytes;
  final int keyBytes;
  final int innerKeys;
  final long childOffset;
  final int leafEntries;
  final long rowIdOffset;

  NodeAccess(NodeFormat format, boolean fetchWholeNode, NodePool pool) {
    this.pool = pool;
    this.int64 = format.keyType() == KeyType.INT64;
    this.lines = format.widthLines();
    this.nodeBytes = format.nodeBytes();
    this.fetch = fetchWholeNode && lines > 1;
    this.keyBytes = format.keyType().bytes();
    this.innerKeys = format.innerKeys();
    this.childOffset = format.childOffset();
    this.leafEntries = format.leafEntries();
    this.rowIdOffset = format.rowIdOffset();
  }

  long leafKey(MemorySegment s, long off, int i) {
    return NodeKeys.get(s, off + LEAF_KEYS, i, int64);
  }

  long innerKey(MemorySegment s, long off, int i) {
    return NodeKeys.get(s, off + INNER_KEYS, i, int64);
  }

  void setLeafKey(MemorySegment s, long off, int i, long key) {
    NodeKeys.set(s, off + LEAF_KEYS, i, key, int64);
  }

  void setInnerKey(MemorySegment s, long off, int i, long key) {
    NodeKeys.set(s, off + INNER_KEYS, i, key, int64);
  }

  /** {@link NodeKeys#bound} over this tree's keys. */
  int bound(MemorySegment s, long keysOff, int n, long key, boolean upper) {
    return NodeKeys.bound(s, keysOff, n, key, upper, int64);
  }

  /** Loads one word of each line of the node but the first, back to back: the whole-node fetch. */
  long touchRest(MemorySegment s, long off) {
    return NodeFetch.touchRest(s, off, lines);
  }

  /** Loads one word of every line of the node: prefetching it ahead of use. */
  long touchAll(MemorySegment s, long off) {
    return NodeFetch.touchAll(s, off, lines);
  }

  /** Writes the header of an empty leaf linked to {@code next} (-1: none). */
  void initLeaf(MemorySegment s, int leaf, int next) {
    long off = pool.offset(leaf);
    s.set(SHORT, off + KEYNUM, (short) 0);
    s.set(SHORT, off + LEVEL, (short) 0);
    s.set(INT, off + NEXT, next);
  }
}
