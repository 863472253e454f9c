package dev.memwall.join.algorithm;

import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.Tuples;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

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
 * block per probing thread. Thread safety: stateless.
 */
public final class OpenAddressingHashJoin {
  /** The default probe group: enough independent misses to fill the machine's miss queues. */
  public static final int DEFAULT_GROUP = 16;
  private static final ValueLayout.OfLong HASH = Tuples.HASH;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final int SLOT_SHIFT = 4;
  private static final long HEAD = 8;
  private static final long MORE = 12;

  /** Left blocks each probing thread should get at least: fewer and starting a thread costs more than it saves. */
  private static final int BLOCKS_PER_THREAD = 64;

  private OpenAddressingHashJoin() {}

  static long slots(long rightRows) {
    return Math.max(2, Long.highestOneBit(Math.max(1, rightRows) * 4 - 1));
  }

  /** Working memory for the given input sizes, with one probe block per probing thread. */
  public static long bytesFor(long leftRows, long rightRows, long rightNullBound, int threads) {
    return (slots(rightRows) << SLOT_SHIFT) + 4L * Math.max(1, rightRows) + Math.max(1, threads) * ProbeBlock.bytes();
  }

  /**
   * Builds the table on the right input on the calling thread, then probes it with the left input's
   * blocks on {@code threads} threads (the table is only read while probing; each thread has its
   * own probe block and a {@linkplain JoinOutput#fork forked} output, so pairs arrive in no
   * particular order).
   */
  public static void run(JoinInput input, JoinOutput out, int group, int threads) {
    if (group < 1 || group > ProbeBlock.ROWS) {
      throw new IllegalArgumentException("probe group must be in 1.." + ProbeBlock.ROWS + ", got " + group);
    }
    int rightRows = input.right().rowCount();
    long slots = slots(rightRows);
    long mask = slots - 1;
    int shift = 64 - Long.numberOfTrailingZeros(slots);
    try (OffHeapBuffer tableBuffer = input.memory().allocate(slots << SLOT_SHIFT, Placement.HUGE_PAGES);
        OffHeapBuffer nextBuffer = input.memory().allocate(4L * Math.max(1, rightRows), Placement.HUGE_PAGES)) {
      MemorySegment table = tableBuffer.segment();
      MemorySegment next = nextBuffer.segment();
      try (ProbeBlock block = new ProbeBlock(input.memory())) {
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
      }
      ProbeBlocks blocks = new ProbeBlocks(input.left());
      int workers = Math.min(Math.max(1, threads), Math.max(1, blocks.count() / BLOCKS_PER_THREAD));
      if (workers == 1) {
        probe(input, out, new Probe(input, out, table, next, mask, shift, group), blocks);
        return;
      }
      List<JoinOutput> forks = new ArrayList<>();
      try {
        List<Runnable> tasks = new ArrayList<>();
        for (int t = 0; t < workers; t++) {
          JoinOutput mine = t == 0 ? out : out.fork();
          if (t > 0) {
            forks.add(mine);
          }
          tasks.add(() -> {
            probe(input, mine, new Probe(input, mine, table, next, mask, shift, group), blocks);
            mine.flush();
          });
        }
        Workers.runAll("memwall-join", tasks);
        forks.forEach(out::absorb);
      } finally {
        forks.forEach(JoinOutput::close);
      }
    }
  }

  /** Probes the left input's blocks that {@code blocks} hands this thread. */
  private static void probe(JoinInput input, JoinOutput out, Probe probe, ProbeBlocks blocks) {
    try (ProbeBlock block = new ProbeBlock(input.memory())) {
      MemorySegment bh = block.tuples.hashes();
      MemorySegment br = block.tuples.rows();
      for (int b = blocks.claim(); b >= 0; b = blocks.claim()) {
        int keyed = block.fill(input.left(), blocks.batch(b), blocks.from(b));
        probe.probe(bh, br, keyed);
        block.emitNullRows(input, out);
      }
    }
  }

  /** The left input's blocks of {@link ProbeBlock#ROWS} rows, handed out to probing threads one at a time. */
  private static final class ProbeBlocks {
    private final int[] batches;
    private final int[] froms;
    private final AtomicInteger next = new AtomicInteger();

    ProbeBlocks(KeyColumns side) {
      int count = 0;
      for (int batch = 0; batch < side.batches(); batch++) {
        count += (side.batchRows(batch) + ProbeBlock.ROWS - 1) / ProbeBlock.ROWS;
      }
      batches = new int[count];
      froms = new int[count];
      int b = 0;
      for (int batch = 0; batch < side.batches(); batch++) {
        for (int from = 0; from < side.batchRows(batch); from += ProbeBlock.ROWS, b++) {
          batches[b] = batch;
          froms[b] = from;
        }
      }
    }

    int count() {
      return batches.length;
    }

    /** The next unclaimed block, or -1 when all are taken. */
    int claim() {
      int b = next.getAndIncrement();
      return b < batches.length ? b : -1;
    }

    int batch(int b) {
      return batches[b];
    }

    int from(int b) {
      return froms[b];
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

    void probe(MemorySegment hashes, MemorySegment rows, int count) {
      if (group == 1) {
        plain(hashes, rows, count);
      } else {
        grouped(hashes, rows, count);
      }
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
