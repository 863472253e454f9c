package dev.memwall.index.pbtree;

import static dev.memwall.index.pbtree.NodeAccess.INT;
import static dev.memwall.index.pbtree.NodeAccess.SHORT;
import static dev.memwall.index.pbtree.NodeFormat.KEYNUM;
import static dev.memwall.index.pbtree.NodeFormat.NEXT;

import dev.memwall.index.node.NodeFetch;
import java.lang.foreign.MemorySegment;

/**
 * The prefetch cursor of a range scan ({@link LeafScan}): it walks the jump-pointer array ahead of
 * the scan, either the leaf parents ({@link JumpPointers#INTERNAL}) or the chunks of the
 * {@link ExternalJumpPointers} array, and loads every line of the next leaves, up to the scan's end
 * leaf. The JVM has no non-blocking prefetch: a load issued d leaves ahead, one per leaf, still
 * blocks retirement once it reaches the head of the reorder buffer, so one such load per leaf
 * overlaps little. Issuing the loads of {@link PbTreeConfig#prefetchDistance()} leaves as a group
 * in a tight loop lets the core overlap their misses, as group prefetching does (seed 002 ch. 4).
 * The node or chunk after the cursor's is loaded when the cursor enters a new one.
 *
 * <p>It exists apart from the scan because walking the jump pointers is its own traversal, with
 * its own position, which the scan only asks to stay ahead of it.
 *
 * <p>Ownership: owned by one scan; reads the tree's nodes and jump-pointer chunks. Thread safety:
 * none, like its scan; the tree must not be modified while it is used. Bad input: none is checked;
 * the scan passes leaf and parent positions from its own descent. {@link #start} and
 * {@link #leafEntered} return the folded words they loaded, for the scan to hand to
 * {@link NodeFetch#consume}.
 */
final class LeafPrefetcher {
  private final NodeAccess nodes;
  private final MemorySegment s;
  /** The external jump-pointer array; null when the leaf parents serve as the (internal) one. */
  private final ExternalJumpPointers external;
  private final MemorySegment chunks;
  private final int distance;
  private final int chunkLines;
  private final int endLeaf;
  // the last leaf prefetched, as (node, slot) in the leaf parents or (chunk, slot)
  private int cursorNode;
  private int cursorSlot;
  private boolean cursorDone;
  /** Leaves prefetched beyond the current one and not yet visited. */
  private int ahead;

  /**
   * A cursor on {@code startLeaf}, child {@code loSlot} of {@code loParent}; {@link #start} loads
   * the first group.
   */
  LeafPrefetcher(PrefetchingBPlusTree tree, MemorySegment s, int startLeaf, int loParent, int loSlot, int endLeaf) {
    PbTreeConfig config = tree.config();
    this.nodes = tree.nodes;
    this.s = s;
    this.external = config.jumpPointers() == JumpPointers.INTERNAL ? null : tree.external;
    this.chunks = external == null ? null : external.segment();
    this.distance = config.prefetchDistance();
    this.chunkLines = config.chunkLines();
    this.endLeaf = endLeaf;
    if (external == null) {
      cursorNode = loParent;
      cursorSlot = loSlot;
    } else {
      long position = external.locate(startLeaf);
      cursorNode = ExternalJumpPointers.chunkOf(position);
      cursorSlot = ExternalJumpPointers.slotOf(position);
    }
    cursorDone = startLeaf == endLeaf;
  }

  /** Loads the chunk after the cursor's (external array) and the first group of leaves. */
  long start() {
    long folded = 0;
    if (external != null) {
      int nextChunk = chunks.get(INT, external.chunkOffset(cursorNode) + ExternalJumpPointers.NEXT);
      if (nextChunk >= 0) {
        folded += touchChunk(nextChunk);
      }
    }
    return folded + prefetchGroup();
  }

  /** The scan has moved to the next leaf: once the leaves loaded ahead are used up, loads the next group. */
  long leafEntered() {
    return --ahead <= 0 && !cursorDone ? prefetchGroup() : 0;
  }

  private long touchChunk(int chunk) {
    return NodeFetch.touchAll(chunks, external.chunkOffset(chunk), chunkLines);
  }

  /** Loads the next d leaves (all their lines) back to back. */
  private long prefetchGroup() {
    long folded = 0;
    for (int i = 0; i < distance && !cursorDone; i++) {
      folded += prefetchNext();
      ahead++;
    }
    return folded;
  }

  /** Moves the cursor to the next leaf and loads all its lines; stops after the end leaf. */
  private long prefetchNext() {
    long folded = 0;
    int leaf;
    if (external == null) {
      long parentOff = nodes.pool.offset(cursorNode);
      if (++cursorSlot > s.get(SHORT, parentOff + KEYNUM)) {
        cursorNode = s.get(INT, parentOff + NEXT);
        if (cursorNode < 0) {
          cursorDone = true;
          return folded;
        }
        cursorSlot = 0;
        parentOff = nodes.pool.offset(cursorNode);
        int following = s.get(INT, parentOff + NEXT);
        if (following >= 0) {
          folded += nodes.touchAll(s, nodes.pool.offset(following));
        }
      }
      leaf = s.get(INT, parentOff + nodes.childOffset + 4L * cursorSlot);
    } else {
      int slots = external.slots();
      while (true) {
        if (++cursorSlot >= slots) {
          cursorNode = chunks.get(INT, external.chunkOffset(cursorNode) + ExternalJumpPointers.NEXT);
          if (cursorNode < 0) {
            cursorDone = true;
            return folded;
          }
          cursorSlot = 0;
          int following = chunks.get(INT, external.chunkOffset(cursorNode) + ExternalJumpPointers.NEXT);
          if (following >= 0) {
            folded += touchChunk(following);
          }
        }
        int value = chunks.get(INT, external.chunkOffset(cursorNode) + ExternalJumpPointers.SLOTS + 4L * cursorSlot);
        if (value != 0) {
          leaf = value - 1;
          break;
        }
      }
    }
    folded += nodes.touchAll(s, nodes.pool.offset(leaf));
    if (leaf == endLeaf) {
      cursorDone = true;
    }
    return folded;
  }
}
