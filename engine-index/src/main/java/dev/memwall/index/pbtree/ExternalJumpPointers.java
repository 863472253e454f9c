package dev.memwall.index.pbtree;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.Placement;
import dev.memwall.index.node.NodePool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The external jump-pointer array of seed 002 section 2.3.2: the ids of all leaves in key order,
 * kept in a doubly linked list of chunks of {@code c} cache lines so that an insertion moves only
 * the few pointers between its position and the nearest empty slot.
 *
 * <pre>
 * chunk: [0,4) next chunk (-1: none)  [4,8) previous chunk (-1: none)  [8,12) used slots
 *        [16, c*64) slots: leaf id + 1, 0 for an empty slot
 * </pre>
 *
 * Each leaf holds a hint ({@link NodeFormat#HINT_CHUNK}, {@link NodeFormat#HINT_SLOT}): the
 * chunk is always its chunk, the slot may be stale after pointers moved within the chunk, so
 * {@link #locate} checks it and searches outward from it. Bulkload fills chunks at most 80% with
 * the empty slots spread evenly; a full chunk splits in two half-full ones (and only then are the
 * moved leaves' hints rewritten). Leaves are never removed (deletion in the tree is lazy).
 *
 * <p>Thread safety: none; owned by one tree, which serializes writers.
 */
final class ExternalJumpPointers implements AutoCloseable {
  /** Leaf pointers one chunk line holds. */
  static final int SLOTS_PER_LINE = NodePool.LINE_BYTES / Integer.BYTES;
  /** The fullest a chunk is bulkloaded (seed 002 section 2.4.3: at most 80%). */
  static final double MAX_BULKLOAD_FILL = 0.8;

  static final long NEXT = 0;
  static final long PREV = 4;
  static final long USED = 8;
  static final long SLOTS = 16;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

  private final NodePool leaves;
  private final NodePool chunks;
  private final int slots;
  private int first = -1;
  private long splits;
  private int[] scratch;

  ExternalJumpPointers(EngineMemory memory, NodePool leaves, int chunkLines, long expectedLeaves, Placement placement) {
    this.leaves = leaves;
    int chunkBytes = chunkLines * NodePool.LINE_BYTES;
    this.slots = (int) ((chunkBytes - SLOTS) / Integer.BYTES);
    long expectedChunks = Math.max(4, expectedLeaves / Math.max(1, (long) (slots * MAX_BULKLOAD_FILL)) + 4);
    this.chunks = NodePool.create(memory, chunkBytes, Math.min(Integer.MAX_VALUE, expectedChunks), placement);
    this.scratch = new int[slots + 1];
  }

  /** Slots per chunk. */
  int slots() {
    return slots;
  }

  int firstChunk() {
    return first;
  }

  long splits() {
    return splits;
  }

  int chunkCount() {
    return chunks.allocatedNodes();
  }

  long reservedBytes() {
    return chunks.reservedBytes();
  }

  MemorySegment segment() {
    return chunks.segment();
  }

  long chunkOffset(int chunk) {
    return chunks.offset(chunk);
  }

  /** Bytes of a chunk. */
  int chunkBytes() {
    return chunks.nodeBytes();
  }

  /**
   * Fills the array with the leaves {@code firstLeaf .. firstLeaf + leafCount - 1} (ids in key
   * order), each chunk at most {@code min(fill, 80%)} full with its empty slots spread evenly.
   */
  void bulkload(int firstLeaf, int leafCount, double fill) {
    int perChunk = Math.max(1, (int) Math.floor(Math.min(fill, MAX_BULKLOAD_FILL) * slots));
    int chunkCount = Math.max(1, (leafCount + perChunk - 1) / perChunk);
    int firstChunk = chunks.allocateRun(chunkCount);
    MemorySegment c = chunks.segment();
    int base = leafCount / chunkCount;
    int extra = leafCount % chunkCount;
    int leaf = firstLeaf;
    for (int k = 0; k < chunkCount; k++) {
      int chunk = firstChunk + k;
      long off = chunks.offset(chunk);
      c.set(INT, off + NEXT, k + 1 < chunkCount ? chunk + 1 : -1);
      c.set(INT, off + PREV, k > 0 ? chunk - 1 : -1);
      int m = base + (k < extra ? 1 : 0);
      for (int i = 0; i < m; i++) {
        place(c, chunk, (int) ((long) i * slots / m), leaf++);
      }
      c.set(INT, off + USED, m);
    }
    first = firstChunk;
  }

  /** Writes {@code leaf} into {@code slot} of {@code chunk} and points the leaf's hint at it. */
  private void place(MemorySegment c, int chunk, int slot, int leaf) {
    c.set(INT, chunks.offset(chunk) + SLOTS + 4L * slot, leaf + 1);
    MemorySegment l = leaves.segment();
    long leafOff = leaves.offset(leaf);
    l.set(INT, leafOff + NodeFormat.HINT_CHUNK, chunk);
    l.set(INT, leafOff + NodeFormat.HINT_SLOT, slot);
  }

  /** The array holding only {@code leaf}: the state of an empty tree. */
  void single(int leaf) {
    int chunk = chunks.allocate();
    MemorySegment c = chunks.segment();
    long off = chunks.offset(chunk);
    c.set(INT, off + NEXT, -1);
    c.set(INT, off + PREV, -1);
    c.set(INT, off + USED, 1);
    place(c, chunk, slots / 2, leaf);
    first = chunk;
  }

  /**
   * The position of {@code leaf}: chunk in the high 32 bits, slot in the low 32.
   *
   * @throws IllegalStateException if the hinted chunk does not hold the leaf (a broken invariant)
   */
  long locate(int leaf) {
    MemorySegment l = leaves.segment();
    long leafOff = leaves.offset(leaf);
    int chunk = l.get(INT, leafOff + NodeFormat.HINT_CHUNK);
    int hint = l.get(INT, leafOff + NodeFormat.HINT_SLOT);
    MemorySegment c = chunks.segment();
    long slotsOff = chunks.offset(chunk) + SLOTS;
    int want = leaf + 1;
    for (int distance = 0; distance < slots; distance++) {
      int right = hint + distance;
      if (right < slots && c.get(INT, slotsOff + 4L * right) == want) {
        return pack(chunk, right);
      }
      int left = hint - distance;
      if (left >= 0 && c.get(INT, slotsOff + 4L * left) == want) {
        return pack(chunk, left);
      }
    }
    throw new IllegalStateException("external jump-pointer array: leaf " + leaf + " is not in its hinted chunk "
        + chunk);
  }

  static long pack(int chunk, int slot) {
    return ((long) chunk << 32) | (slot & 0xFFFF_FFFFL);
  }

  static int chunkOf(long position) {
    return (int) (position >>> 32);
  }

  static int slotOf(long position) {
    return (int) position;
  }

  /** Puts {@code fresh} right after {@code left}, which is already in the array. */
  void insertAfter(int left, int fresh) {
    long position = locate(left);
    int chunk = chunkOf(position);
    int slot = slotOf(position);
    MemorySegment c = chunks.segment();
    long off = chunks.offset(chunk);
    long slotsOff = off + SLOTS;
    int used = c.get(INT, off + USED);
    if (used < slots) {
      for (int distance = 1; distance < slots; distance++) {
        int right = slot + distance;
        if (right < slots && c.get(INT, slotsOff + 4L * right) == 0) {
          // shift slot+1 .. right-1 one to the right, then take slot+1
          MemorySegment.copy(c, slotsOff + 4L * (slot + 1), c, slotsOff + 4L * (slot + 2), 4L * (right - slot - 1));
          place(c, chunk, slot + 1, fresh);
          updateHint(left, chunk, slot);
          c.set(INT, off + USED, used + 1);
          return;
        }
        int leftSlot = slot - distance;
        if (leftSlot >= 0 && c.get(INT, slotsOff + 4L * leftSlot) == 0) {
          // shift leftSlot+1 .. slot one to the left: left moves to slot-1, fresh takes slot
          MemorySegment.copy(c, slotsOff + 4L * (leftSlot + 1), c, slotsOff + 4L * leftSlot, 4L * (slot - leftSlot));
          place(c, chunk, slot, fresh);
          updateHint(left, chunk, slot - 1);
          c.set(INT, off + USED, used + 1);
          return;
        }
      }
      throw new IllegalStateException("external jump-pointer array: chunk " + chunk + " counts " + used
          + " used slots of " + slots + " but has no empty one");
    }
    split(chunk, slot, fresh);
  }

  private void updateHint(int leaf, int chunk, int slot) {
    MemorySegment l = leaves.segment();
    long leafOff = leaves.offset(leaf);
    l.set(INT, leafOff + NodeFormat.HINT_CHUNK, chunk);
    l.set(INT, leafOff + NodeFormat.HINT_SLOT, slot);
  }

  /** Splits the full {@code chunk}, inserting {@code fresh} after the leaf at {@code slot}. */
  private void split(int chunk, int slot, int fresh) {
    int other = chunks.allocate();
    MemorySegment c = chunks.segment();
    long off = chunks.offset(chunk);
    long otherOff = chunks.offset(other);
    int n = 0;
    for (int s = 0; s < slots; s++) {
      int value = c.get(INT, off + SLOTS + 4L * s);
      if (value != 0) {
        scratch[n++] = value - 1;
      }
      if (s == slot) {
        scratch[n++] = fresh;
      }
    }
    c.asSlice(off + SLOTS, 4L * slots).fill((byte) 0);
    int keep = (n + 1) / 2;
    for (int i = 0; i < keep; i++) {
      place(c, chunk, (int) ((long) i * slots / keep), scratch[i]);
    }
    int moved = n - keep;
    for (int i = 0; i < moved; i++) {
      place(c, other, (int) ((long) i * slots / moved), scratch[keep + i]);
    }
    c.set(INT, off + USED, keep);
    c.set(INT, otherOff + USED, moved);
    int next = c.get(INT, off + NEXT);
    c.set(INT, otherOff + NEXT, next);
    c.set(INT, otherOff + PREV, chunk);
    c.set(INT, off + NEXT, other);
    if (next >= 0) {
      c.set(INT, chunks.offset(next) + PREV, other);
    }
    splits++;
  }

  /**
   * Checks that the array lists exactly {@code leafOrder[0 .. count)} in order, that the chunk
   * links and used counts agree, and that every leaf's hinted chunk holds it.
   *
   * @throws IllegalStateException describing the first violation
   */
  void check(int[] leafOrder, int count) {
    MemorySegment c = chunks.segment();
    MemorySegment l = leaves.segment();
    int at = 0;
    int previous = -1;
    int visited = 0;
    for (int chunk = first; chunk >= 0; chunk = c.get(INT, chunks.offset(chunk) + NEXT)) {
      if (++visited > chunks.allocatedNodes()) {
        throw new IllegalStateException("jump-pointer chunk list has a cycle");
      }
      long off = chunks.offset(chunk);
      if (c.get(INT, off + PREV) != previous) {
        throw new IllegalStateException("chunk " + chunk + " has previous " + c.get(INT, off + PREV) + ", expected "
            + previous);
      }
      int used = 0;
      for (int s = 0; s < slots; s++) {
        int value = c.get(INT, off + SLOTS + 4L * s);
        if (value == 0) {
          continue;
        }
        used++;
        int leaf = value - 1;
        if (at >= count || leafOrder[at] != leaf) {
          throw new IllegalStateException("jump-pointer array holds leaf " + leaf + " at position " + at
              + " but the leaf chain has " + (at < count ? Integer.toString(leafOrder[at]) : "no more leaves"));
        }
        at++;
        int hint = l.get(INT, leaves.offset(leaf) + NodeFormat.HINT_CHUNK);
        if (hint != chunk) {
          throw new IllegalStateException("leaf " + leaf + " hints chunk " + hint + " but sits in chunk " + chunk);
        }
        int hintSlot = l.get(INT, leaves.offset(leaf) + NodeFormat.HINT_SLOT);
        if (hintSlot < 0 || hintSlot >= slots) {
          throw new IllegalStateException("leaf " + leaf + " hints slot " + hintSlot + " outside 0.." + (slots - 1));
        }
      }
      if (used != c.get(INT, off + USED) || used == 0) {
        throw new IllegalStateException("chunk " + chunk + " counts " + c.get(INT, off + USED) + " used slots, holds "
            + used);
      }
      previous = chunk;
    }
    if (at != count) {
      throw new IllegalStateException("jump-pointer array lists " + at + " leaves, the leaf chain " + count);
    }
  }

  @Override
  public void close() {
    chunks.close();
  }
}
