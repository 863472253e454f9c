package dev.memwall.join.algorithm;

import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.Tuples;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The optimized non-partitioned hash join: an open-addressing table (linear probing, load at most
 * one half) of 16-byte slots {hash, first row + 1, more + 1}, one slot per distinct key; the key's
 * further rows are chained from {@code more} through a next array indexed by right row id. A probe
 * of a unique key is then one cache line and nothing else (the chain is only read when the slot says
 * it exists); the right input is never copied (it is streamed into the table block by block), nor is
 * the left one (streamed through a probe block).
 *
 * <p>Batched probes: with {@code group > 1} the probe loop works on groups of that many keys. It
 * first computes every slot of the group and loads each slot's hash and head, independent loads
 * whose cache misses the out-of-order core overlaps (memory-level parallelism: the JVM has no
 * prefetch instruction, so this is the "group prefetching" of seed 002 done with plain loads), then
 * resolves the group's keys one by one against slots that are now in the cache. With
 * {@code group == 1} it is the plain loop: one key at a time, load then compare.
 *
 * <p>Memory: 16 bytes per slot (2 to 4 per right row), 4 bytes per right row for the chains, a probe
 * block. Thread safety: stateless.
 */
public final class OpenAddressingHashJoin {
  /** The default probe group: enough independent misses to fill the machine's miss queues. */
  public static final int DEFAULT_GROUP = 16;
  private static final ValueLayout.OfLong HASH = Tuples.HASH;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final int SLOT_SHIFT = 4;
  private static final long HEAD = 8;
  private static final long MORE = 12;

  private OpenAddressingHashJoin() {}

  static long slots(long rightRows) {
    return Math.max(2, Long.highestOneBit(Math.max(1, rightRows) * 4 - 1));
  }

  /** Working memory for the given input sizes. */
  public static long bytesFor(long leftRows, long rightRows, long rightNullBound) {
    return (slots(rightRows) << SLOT_SHIFT) + 4L * Math.max(1, rightRows) + ProbeBlock.bytes();
  }

  public static void run(JoinInput input, JoinOutput out, int group) {
    if (group < 1 || group > ProbeBlock.ROWS) {
      throw new IllegalArgumentException("probe group must be in 1.." + ProbeBlock.ROWS + ", got " + group);
    }
    int rightRows = input.right().rowCount();
    long slots = slots(rightRows);
    long mask = slots - 1;
    int shift = 64 - Long.numberOfTrailingZeros(slots);
    try (OffHeapBuffer tableBuffer = input.memory().allocate(slots << SLOT_SHIFT, Placement.HUGE_PAGES);
        OffHeapBuffer nextBuffer = input.memory().allocate(4L * Math.max(1, rightRows), Placement.HUGE_PAGES);
        ProbeBlock block = new ProbeBlock(input.memory())) {
      MemorySegment table = tableBuffer.segment();
      MemorySegment next = nextBuffer.segment();
      MemorySegment bh = block.tuples.hashes();
      MemorySegment br = block.tuples.rows();
      for (int batch = 0; batch < input.right().batches(); batch++) {
        for (int from = 0; from < input.right().batchRows(batch); from += ProbeBlock.ROWS) {
          int keyed = block.fill(input.right(), batch, from);
          for (int k = 0; k < keyed; k++) {
            insert(table, next, mask, shift, bh.getAtIndex(HASH, k), br.getAtIndex(INT, k));
          }
        }
      }
      Probe probe = new Probe(input, out, table, next, mask, shift, group);
      for (int batch = 0; batch < input.left().batches(); batch++) {
        for (int from = 0; from < input.left().batchRows(batch); from += ProbeBlock.ROWS) {
          int keyed = block.fill(input.left(), batch, from);
          if (group == 1) {
            probe.plain(bh, br, keyed);
          } else {
            probe.grouped(bh, br, keyed);
          }
          block.emitNullRows(input, out);
        }
      }
    }
  }

  private static void insert(MemorySegment table, MemorySegment next, long mask, int shift, long h, int row) {
    long slot = h >>> shift;
    while (true) {
      long at = slot << SLOT_SHIFT;
      int head = table.get(INT, at + HEAD);
      if (head == 0) {
        table.set(HASH, at, h);
        table.set(INT, at + HEAD, row + 1);
        return; // the slot's more is still 0: no further rows
      }
      if (table.get(HASH, at) == h) {
        next.setAtIndex(INT, row, table.get(INT, at + MORE));
        table.set(INT, at + MORE, row + 1);
        return;
      }
      slot = (slot + 1) & mask;
    }
  }

  /** The probe loops; fields hold what the loops read so they stay in registers. */
  private static final class Probe {
    private final MemorySegment table;
    private final MemorySegment next;
    private final long mask;
    private final int shift;
    private final int group;
    private final RowMatcher matcher;
    private final long[] slotOf;
    private final long[] slotHash;
    private final int[] slotHead;

    Probe(JoinInput input, JoinOutput out, MemorySegment table, MemorySegment next, long mask, int shift, int group) {
      this.table = table;
      this.next = next;
      this.mask = mask;
      this.shift = shift;
      this.group = group;
      this.matcher = new RowMatcher(input, out);
      this.slotOf = new long[group];
      this.slotHash = new long[group];
      this.slotHead = new int[group];
    }

    void plain(MemorySegment hashes, MemorySegment rows, int count) {
      for (int k = 0; k < count; k++) {
        long h = hashes.getAtIndex(HASH, k);
        long slot = h >>> shift;
        long at = slot << SLOT_SHIFT;
        resolve(h, rows.getAtIndex(INT, k), slot, table.get(HASH, at), table.get(INT, at + HEAD));
      }
    }

    void grouped(MemorySegment hashes, MemorySegment rows, int count) {
      MemorySegment t = table;
      long[] slots = slotOf;
      long[] seen = slotHash;
      int[] heads = slotHead;
      for (int g = 0; g < count; g += group) {
        int n = Math.min(group, count - g);
        for (int k = 0; k < n; k++) { // stage 1: every slot of the group, loads issued back to back
          long slot = hashes.getAtIndex(HASH, g + k) >>> shift;
          long at = slot << SLOT_SHIFT;
          slots[k] = slot;
          seen[k] = t.get(HASH, at);
          heads[k] = t.get(INT, at + HEAD);
        }
        for (int k = 0; k < n; k++) { // stage 2: compare, follow collisions and chains
          resolve(hashes.getAtIndex(HASH, g + k), rows.getAtIndex(INT, g + k), slots[k], seen[k], heads[k]);
        }
      }
    }

    private void resolve(long h, int leftRow, long slot, long slotHash, int head) {
      while (head != 0 && slotHash != h) {
        slot = (slot + 1) & mask;
        long at = slot << SLOT_SHIFT;
        slotHash = table.get(HASH, at);
        head = table.get(INT, at + HEAD);
      }
      if (head != 0 && !matcher.offer(leftRow, head - 1)) {
        for (int e = table.get(INT, (slot << SLOT_SHIFT) + MORE); e != 0; e = next.getAtIndex(INT, e - 1)) {
          if (matcher.offer(leftRow, e - 1)) {
            break;
          }
        }
      }
      matcher.finish(leftRow);
    }
  }
}
