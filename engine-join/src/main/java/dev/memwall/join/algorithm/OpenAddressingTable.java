package dev.memwall.join.algorithm;

import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.Tuples;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

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
 * <p>The slots are cut into a power of two of ranges by their top bits, and probing wraps around
 * within a range, so the ranges are independent tables: a large build side is hashed on several
 * threads, each inserting the rows whose home slots lie in its ranges (every key's rows in row order,
 * as one thread would).
 *
 * <p>Lookups come one at a time ({@link #slotOf}) or for a group of hashes at once
 * ({@link #slotsOf}): the group's home slots are loaded back to back before any is compared, so
 * their cache misses overlap (the JVM has no prefetch instruction; these independent loads are its
 * "group prefetching", seed 002).
 *
 * <p>Ownership: the table owns its two buffers, charged to the memory it was built with, until
 * {@link #close}. Thread safety: built by {@link #build}'s threads; afterwards any number of threads may
 * look up concurrently.
 */
public final class OpenAddressingTable implements AutoCloseable {
  private static final ValueLayout.OfLong HASH = Tuples.HASH;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final int SLOT_SHIFT = 4;
  private static final long HEAD = 8;
  private static final long MORE = 12;
  /** Hashes looked up together by {@link #slotsOf}: enough independent misses to fill the miss queues. */
  public static final int GROUP = 16;
  /** Build rows from which more than one thread builds the table. */
  static final int PARALLEL_BUILD_ROWS = 1 << 16;

  private final OffHeapBuffer tableBuffer;
  private final OffHeapBuffer nextBuffer;
  private final MemorySegment table;
  private final MemorySegment next;
  private final long mask;
  private final int shift;
  /** Slots per range minus one: probing steps from slot s to {@code (s & ~rangeMask) | ((s + 1) & rangeMask)}. */
  private final long rangeMask;

  private OpenAddressingTable(OffHeapBuffer tableBuffer, OffHeapBuffer nextBuffer, long slots, int ranges) {
    this.tableBuffer = tableBuffer;
    this.nextBuffer = nextBuffer;
    this.table = tableBuffer.segment();
    this.next = nextBuffer.segment();
    this.mask = slots - 1;
    this.shift = 64 - Long.numberOfTrailingZeros(slots);
    this.rangeMask = slots / ranges - 1;
  }

  static long slots(long rows) {
    return Math.max(2, Long.highestOneBit(Math.max(1, rows) * 4 - 1));
  }

  /** Bytes of the table for a build input of {@code rows} rows. */
  public static long bytesFor(long rows) {
    return (slots(rows) << SLOT_SHIFT) + 4L * Math.max(1, rows);
  }

  /** {@link #build(KeyColumns, EngineMemory, int)} on the calling thread alone. */
  public static OpenAddressingTable build(KeyColumns build, EngineMemory memory) {
    return build(build, memory, 1);
  }

  /**
   * Builds the table over every row of {@code build} with a non-null key. Up to
   * {@value #PARALLEL_BUILD_ROWS} rows, or with one thread, the calling thread streams the input
   * through one cache-resident block of (hash, row) tuples; beyond, {@code threads} threads first
   * hash the rows (each a share of the blocks) and then insert them, each thread the rows of its
   * slot ranges.
   *
   * @throws dev.memwall.core.memory.BudgetExceededException if {@code memory} cannot hold it;
   *     nothing stays allocated then
   */
  public static OpenAddressingTable build(KeyColumns build, EngineMemory memory, int threads) {
    long slots = slots(build.rowCount());
    int ranges = threads > 1 && build.rowCount() >= PARALLEL_BUILD_ROWS
        ? (int) Math.min(slots / 1024, Integer.highestOneBit(threads) * 2L) : 1;
    OffHeapBuffer tableBuffer = memory.allocate(slots << SLOT_SHIFT, Placement.HUGE_PAGES);
    OpenAddressingTable built;
    try {
      built = new OpenAddressingTable(tableBuffer,
          memory.allocate(4L * Math.max(1, build.rowCount()), Placement.HUGE_PAGES), slots, Math.max(1, ranges));
    } catch (RuntimeException e) {
      tableBuffer.close();
      throw e;
    }
    try {
      if (ranges <= 1) {
        built.insertAll(build, memory);
      } else {
        built.insertInParallel(build, memory, threads, ranges);
      }
      return built;
    } catch (RuntimeException | Error e) {
      built.close();
      throw e;
    }
  }

  /** Inserts every keyed row of {@code build}, in row order, on the calling thread. */
  private void insertAll(KeyColumns build, EngineMemory memory) {
    try (ProbeBlock block = new ProbeBlock(memory)) {
      MemorySegment hashes = block.tuples.hashes();
      MemorySegment rows = block.tuples.rows();
      for (int batch = 0; batch < build.batches(); batch++) {
        for (int from = 0; from < build.batchRows(batch); from += ProbeBlock.ROWS) {
          int keyed = block.fill(build, batch, from);
          for (int k = 0; k < keyed; k++) {
            insert(hashes.getAtIndex(HASH, k), rows.getAtIndex(INT, k));
          }
        }
      }
    }
  }

  /**
   * Hashes every row on {@code threads} threads into a row-indexed array (a null key marked by an
   * unset bit), then lets each thread insert, in row order, the rows whose home slots lie in the
   * ranges it claims.
   */
  private void insertInParallel(KeyColumns build, EngineMemory memory, int threads, int ranges) {
    int rows = build.rowCount();
    List<int[]> blocks = new ArrayList<>();
    for (int batch = 0; batch < build.batches(); batch++) {
      for (int from = 0; from < build.batchRows(batch); from += ProbeBlock.ROWS) {
        blocks.add(new int[] {batch, from});
      }
    }
    try (OffHeapBuffer hashBuffer = memory.allocate(8L * rows, Placement.HUGE_PAGES);
        OffHeapBuffer keyedBuffer = memory.allocate(rows)) {
      MemorySegment hashOf = hashBuffer.segment();
      MemorySegment keyed = keyedBuffer.segment();
      AtomicInteger nextBlock = new AtomicInteger();
      List<Runnable> hashing = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        hashing.add(() -> {
          try (ProbeBlock block = new ProbeBlock(memory)) {
            MemorySegment hashes = block.tuples.hashes();
            MemorySegment rowIds = block.tuples.rows();
            for (int b = nextBlock.getAndIncrement(); b < blocks.size(); b = nextBlock.getAndIncrement()) {
              int count = block.fill(build, blocks.get(b)[0], blocks.get(b)[1]);
              for (int k = 0; k < count; k++) {
                int row = rowIds.getAtIndex(INT, k);
                hashOf.setAtIndex(HASH, row, hashes.getAtIndex(HASH, k));
                keyed.set(ValueLayout.JAVA_BYTE, row, (byte) 1);
              }
            }
          }
        });
      }
      Workers.runAll("memwall-build", hashing);
      int rangeShift = Long.numberOfTrailingZeros(rangeMask + 1);
      AtomicInteger nextRange = new AtomicInteger();
      List<Runnable> inserting = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        inserting.add(() -> {
          for (int r = nextRange.getAndIncrement(); r < ranges; r = nextRange.getAndIncrement()) {
            for (int row = 0; row < rows; row++) {
              long h = hashOf.getAtIndex(HASH, row);
              if (((h >>> shift) >>> rangeShift) == r && keyed.get(ValueLayout.JAVA_BYTE, row) != 0) {
                insert(h, row);
              }
            }
          }
        });
      }
      Workers.runAll("memwall-build", inserting);
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
      slot = following(slot);
    }
  }

  /** The slot probing visits after {@code slot}: the next one, wrapping around within its range. */
  private long following(long slot) {
    return (slot & ~rangeMask) | ((slot + 1) & rangeMask);
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
      slot = following(slot);
      long at = slot << SLOT_SHIFT;
      slotHash = table.get(HASH, at);
      head = table.get(INT, at + HEAD);
    }
    return head == 0 ? -1 : slot;
  }

  /** Hands the hash of every key in the table (one per distinct key) to {@code action}, in slot order. */
  public void forEachKeyHash(LongConsumer action) {
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
