package dev.memwall.join.algorithm;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.Tuples;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The hash table of the non-partitioned joins: open addressing with linear probing, at most half
 * full, of 16-byte slots {hash, first row + 1, more + 1}, one slot per distinct key hash (the slot
 * index is the hash's top bits). A key's further rows are chained from {@code more} through a next
 * array indexed by row id, so a probe of a unique key reads one cache line and nothing else.
 *
 * <p>Rows are the build input's global row ids; rows with a null key are not in the table (they
 * match nothing). For exact key shapes equal hashes mean equal keys; otherwise a match must be
 * confirmed on the key columns.
 *
 * <p>Lookups come one at a time ({@link #slotOf}) or for a group of hashes at once
 * ({@link #slotsOf}): the group's home slots are loaded back to back before any is compared, so
 * their cache misses overlap (the JVM has no prefetch instruction; these independent loads are its
 * "group prefetching", seed 002).
 *
 * <p>Ownership: the table owns its two buffers, charged to the memory it was built with, until
 * {@link #close}. Thread safety: built by one thread; afterwards any number of threads may look up
 * concurrently.
 */
public final class OpenAddressingTable implements AutoCloseable {
  private static final ValueLayout.OfLong HASH = Tuples.HASH;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final int SLOT_SHIFT = 4;
  private static final long HEAD = 8;
  private static final long MORE = 12;
  /** Hashes looked up together by {@link #slotsOf}: enough independent misses to fill the miss queues. */
  public static final int GROUP = 16;

  private final OffHeapBuffer tableBuffer;
  private final OffHeapBuffer nextBuffer;
  private final MemorySegment table;
  private final MemorySegment next;
  private final long mask;
  private final int shift;

  private OpenAddressingTable(OffHeapBuffer tableBuffer, OffHeapBuffer nextBuffer, long slots) {
    this.tableBuffer = tableBuffer;
    this.nextBuffer = nextBuffer;
    this.table = tableBuffer.segment();
    this.next = nextBuffer.segment();
    this.mask = slots - 1;
    this.shift = 64 - Long.numberOfTrailingZeros(slots);
  }

  static long slots(long rows) {
    return Math.max(2, Long.highestOneBit(Math.max(1, rows) * 4 - 1));
  }

  /** Bytes of the table for a build input of {@code rows} rows. */
  public static long bytesFor(long rows) {
    return (slots(rows) << SLOT_SHIFT) + 4L * Math.max(1, rows);
  }

  /**
   * Builds the table over every row of {@code build} with a non-null key, on the calling thread,
   * streaming the input through one cache-resident block of (hash, row) tuples.
   *
   * @throws dev.memwall.core.memory.BudgetExceededException if {@code memory} cannot hold it;
   *     nothing stays allocated then
   */
  public static OpenAddressingTable build(KeyColumns build, EngineMemory memory) {
    long slots = slots(build.rowCount());
    OffHeapBuffer tableBuffer = memory.allocate(slots << SLOT_SHIFT, Placement.HUGE_PAGES);
    OpenAddressingTable built;
    try {
      built = new OpenAddressingTable(tableBuffer,
          memory.allocate(4L * Math.max(1, build.rowCount()), Placement.HUGE_PAGES), slots);
    } catch (RuntimeException e) {
      tableBuffer.close();
      throw e;
    }
    try (ProbeBlock block = new ProbeBlock(memory)) {
      MemorySegment hashes = block.tuples.hashes();
      MemorySegment rows = block.tuples.rows();
      for (int batch = 0; batch < build.batches(); batch++) {
        for (int from = 0; from < build.batchRows(batch); from += ProbeBlock.ROWS) {
          int keyed = block.fill(build, batch, from);
          for (int k = 0; k < keyed; k++) {
            built.insert(hashes.getAtIndex(HASH, k), rows.getAtIndex(INT, k));
          }
        }
      }
      return built;
    } catch (RuntimeException | Error e) {
      built.close();
      throw e;
    }
  }

  private void insert(long h, int row) {
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

  /** The slot holding hash {@code h}, or -1 when no row has it. */
  public long slotOf(long h) {
    long slot = h >>> shift;
    long at = slot << SLOT_SHIFT;
    return resolve(h, slot, table.get(HASH, at), table.get(INT, at + HEAD));
  }

  /**
   * Looks up {@code hashes[from, from + n)} (n at most {@link #GROUP}) at once: first every home slot
   * is loaded, then each hash is resolved; {@code slots[from + i]} receives the slot holding
   * {@code hashes[from + i]} or -1.
   *
   * @param seen scratch of at least {@code n} entries
   * @param heads scratch of at least {@code n} entries
   */
  public void slotsOf(long[] hashes, int from, int n, long[] slots, long[] seen, int[] heads) {
    MemorySegment t = table;
    for (int i = 0; i < n; i++) { // stage 1: every home slot of the group, loads issued back to back
      long slot = hashes[from + i] >>> shift;
      long at = slot << SLOT_SHIFT;
      slots[from + i] = slot;
      seen[i] = t.get(HASH, at);
      heads[i] = t.get(INT, at + HEAD);
    }
    for (int i = 0; i < n; i++) { // stage 2: compare, follow collisions
      slots[from + i] = resolve(hashes[from + i], slots[from + i], seen[i], heads[i]);
    }
  }

  /** Probes on from {@code slot}, whose hash and head were read, to the slot holding {@code h}, or -1. */
  long resolve(long h, long slot, long slotHash, int head) {
    while (head != 0 && slotHash != h) {
      slot = (slot + 1) & mask;
      long at = slot << SLOT_SHIFT;
      slotHash = table.get(HASH, at);
      head = table.get(INT, at + HEAD);
    }
    return head == 0 ? -1 : slot;
  }

  /** Hands the hash of every key in the table (one per distinct key) to {@code action}, in slot order. */
  public void forEachKeyHash(java.util.function.LongConsumer action) {
    long slots = mask + 1;
    for (long slot = 0; slot < slots; slot++) {
      if (headAt(slot) != 0) {
        action.accept(hashAt(slot));
      }
    }
  }

  /** The home slot of hash {@code h}. */
  long homeSlot(long h) {
    return h >>> shift;
  }

  /** The hash stored in {@code slot} (0 for an empty slot). */
  long hashAt(long slot) {
    return table.get(HASH, slot << SLOT_SHIFT);
  }

  /** The head ({@code first row + 1}, 0 for an empty slot) stored in {@code slot}. */
  int headAt(long slot) {
    return table.get(INT, (slot << SLOT_SHIFT) + HEAD);
  }

  /** The first row of the key in {@code slot} (a slot {@link #slotOf} found). */
  public int firstRow(long slot) {
    return table.get(INT, (slot << SLOT_SHIFT) + HEAD) - 1;
  }

  /** The second row of the key in {@code slot}, or -1 when it has one row. */
  public int secondRow(long slot) {
    return table.get(INT, (slot << SLOT_SHIFT) + MORE) - 1;
  }

  /** The row after {@code row} (not the first) in its key's chain, or -1 at the end. */
  public int nextRow(int row) {
    return next.getAtIndex(INT, row) - 1;
  }

  @Override
  public void close() {
    try {
      tableBuffer.close();
    } finally {
      nextBuffer.close();
    }
  }
}
