package dev.memwall.join.algorithm;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.concurrent.Workers;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.partition.HashedTuples;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>A lookup yields the key's <em>entry</em>, its slot's {first row + 1, more + 1} read as one long
 * (0: no row has the hash), so a caller needs nothing more from the slot: {@link #firstRow(long)}
 * and {@link #secondRow(long)} decode it, {@link #nextRow} walks on. Lookups come one at a time
 * ({@link #entryOf}) or for a block of hashes ({@link #entriesOf}).
 *
 * <p>Ownership: the table owns its two buffers, charged to the memory it was built with, until
 * {@link #close}. Thread safety: built by {@link #build}'s threads; afterwards any number of threads may
 * look up concurrently.
 */
public final class OpenAddressingTable implements BuildTable {
  private static final ValueLayout.OfLong HASH = HashedTuples.HASH;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final int SLOT_SHIFT = 4;
  /** A slot's head and more read as one long, the entry: head in the low half (little-endian). */
  private static final ValueLayout.OfLong ENTRY = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final long HEAD = 8;
  private static final long MORE = 12;
  /** Rows an {@link Inserter} loads the home slots of before inserting them: enough to fill the miss queues. */
  private static final int INSERT_GROUP = 64;
  /** Build rows from which more than one thread builds the table. */
  static final int PARALLEL_BUILD_ROWS = 1 << 16;
  /** Slot ranges a parallel build cuts the table into per thread (a power of two): claimed one at a time, so threads finish together. */
  private static final int RANGES_PER_THREAD = 8;

  private final OffHeapBuffer tableBuffer;
  private final OffHeapBuffer nextBuffer;
  private final MemorySegment table;
  private final MemorySegment next;
  private final long mask;
  private final int shift;
  /** Slots per range minus one: probing steps from slot s to {@code (s & ~rangeMask) | ((s + 1) & rangeMask)}. */
  private final long rangeMask;
  /** The sum of the heads the inserters loaded ahead; never read, only there to keep those loads. */
  private final AtomicLong touchedHeads = new AtomicLong();
  /** Rows inserted behind another row of the same hash (chained from its slot's {@code more}). */
  private final AtomicLong chainedRows = new AtomicLong();

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
        ? (int) Math.min(slots / 1024, (long) Integer.highestOneBit(threads) * RANGES_PER_THREAD) : 1;
    // the slots must start empty: zeroed here for one inserting thread, else by each inserting
    // thread in the ranges it claims; a row's next link is written before it is read
    OffHeapBuffer tableBuffer = ranges > 1
        ? memory.allocateUninitialized(slots << SLOT_SHIFT, Placement.HUGE_PAGES)
        : memory.allocate(slots << SLOT_SHIFT, Placement.HUGE_PAGES);
    OpenAddressingTable built;
    try {
      built = new OpenAddressingTable(tableBuffer,
          memory.allocateUninitialized(4L * Math.max(1, build.rowCount()), Placement.HUGE_PAGES), slots,
          Math.max(1, ranges));
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
    Inserter inserter = new Inserter();
    try (ProbeBlock block = new ProbeBlock(memory)) {
      MemorySegment hashes = block.tuples.hashes();
      MemorySegment rows = block.tuples.rows();
      for (int batch = 0; batch < build.batches(); batch++) {
        for (int from = 0; from < build.batchRows(batch); from += ProbeBlock.ROWS) {
          ExecutionControl.checkpoint();
          int keyed = block.fill(build, batch, from);
          for (int k = 0; k < keyed; k++) {
            inserter.add(hashes.getAtIndex(HASH, k), rows.getAtIndex(INT, k));
          }
        }
      }
    }
    inserter.finish();
  }

  /**
   * Hashes every row on {@code threads} threads, each block of rows sorting its keyed rows with their
   * hashes by the slot range of the hash (a counting sort within the block's share of two arrays),
   * then lets each thread empty the ranges of slots it claims and insert their rows: a range's run of
   * each block, block after block, so in row order, read in sequence, and no thread reads the rows
   * of a range it did not claim. That makes a range cheap enough to cut the table into several
   * per thread, so that the thread that claims the last one waits little for the others.
   */
  private void insertInParallel(KeyColumns build, EngineMemory memory, int threads, int ranges) {
    int rows = build.rowCount();
    List<int[]> blocks = new ArrayList<>(); // {batch, first row in the batch, first row overall}
    int first = 0;
    for (int batch = 0; batch < build.batches(); batch++) {
      for (int from = 0; from < build.batchRows(batch); from += ProbeBlock.ROWS) {
        blocks.add(new int[] {batch, from, first});
        first += Math.min(ProbeBlock.ROWS, build.batchRows(batch) - from);
      }
    }
    int rangeShift = Long.numberOfTrailingZeros(rangeMask + 1);
    // per block, where each range's rows start within the block's share of the sorted arrays, then its end
    int[] runs = new int[blocks.size() * (ranges + 1)];
    try (OffHeapBuffer hashBuffer = memory.allocateUninitialized(8L * Math.max(1, rows), Placement.HUGE_PAGES);
        OffHeapBuffer rowBuffer = memory.allocateUninitialized(4L * Math.max(1, rows), Placement.HUGE_PAGES)) {
      MemorySegment sortedHashes = hashBuffer.segment();
      MemorySegment sortedRows = rowBuffer.segment();
      AtomicInteger nextBlock = new AtomicInteger();
      List<Runnable> hashing = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        hashing.add(() -> {
          int[] bounds = new int[ranges + 1]; // this thread's own: neighbouring blocks' runs share cache lines
          int[] next = new int[ranges];
          try (ProbeBlock block = new ProbeBlock(memory)) {
            MemorySegment hashes = block.tuples.hashes();
            MemorySegment rowIds = block.tuples.rows();
            for (int b = nextBlock.getAndIncrement(); b < blocks.size(); b = nextBlock.getAndIncrement()) {
              ExecutionControl.checkpoint();
              int[] at = blocks.get(b);
              int count = block.fill(build, at[0], at[1]);
              Arrays.fill(bounds, 0);
              for (int k = 0; k < count; k++) {
                bounds[(int) ((hashes.getAtIndex(HASH, k) >>> shift) >>> rangeShift) + 1]++;
              }
              for (int r = 0; r < ranges; r++) {
                bounds[r + 1] += bounds[r];
                next[r] = bounds[r];
              }
              System.arraycopy(bounds, 0, runs, b * (ranges + 1), ranges + 1);
              for (int k = 0; k < count; k++) {
                long h = hashes.getAtIndex(HASH, k);
                int to = at[2] + next[(int) ((h >>> shift) >>> rangeShift)]++;
                sortedHashes.setAtIndex(HASH, to, h);
                sortedRows.setAtIndex(INT, to, rowIds.getAtIndex(INT, k));
              }
            }
          }
        });
      }
      Workers.runAll("memwall-build", hashing);
      long rangeBytes = (rangeMask + 1) << SLOT_SHIFT;
      AtomicInteger nextRange = new AtomicInteger();
      List<Runnable> inserting = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        inserting.add(() -> {
          Inserter inserter = new Inserter();
          for (int r = nextRange.getAndIncrement(); r < ranges; r = nextRange.getAndIncrement()) {
            ExecutionControl.checkpoint();
            table.asSlice(r * rangeBytes, rangeBytes).fill((byte) 0);
            for (int b = 0; b < blocks.size(); b++) {
              int base = blocks.get(b)[2];
              int run = b * (ranges + 1) + r;
              for (int i = base + runs[run], end = base + runs[run + 1]; i < end; i++) {
                inserter.add(sortedHashes.getAtIndex(HASH, i), sortedRows.getAtIndex(INT, i));
              }
            }
          }
          inserter.finish();
        });
      }
      Workers.runAll("memwall-build", inserting);
    }
  }

  /**
   * One thread's inserts, buffered {@value #INSERT_GROUP} at a time: the home slots of a group are
   * loaded back to back, then its rows inserted in order (group prefetching, seed 002, done with
   * plain loads). A plain insert loop overlaps few of its misses, each insert's stores holding the
   * reorder window behind its miss, so loading ahead shortens the build (docs/benchmarks/joins.md).
   */
  private final class Inserter {
    private final long[] hashes = new long[INSERT_GROUP];
    private final int[] rows = new int[INSERT_GROUP];
    private int count;
    private long touched;
    private long chained;

    void add(long h, int row) {
      hashes[count] = h;
      rows[count] = row;
      if (++count == INSERT_GROUP) {
        flush();
      }
    }

    private void flush() {
      MemorySegment t = table;
      long heads = 0;
      for (int i = 0; i < count; i++) {
        heads += t.get(INT, ((hashes[i] >>> shift) << SLOT_SHIFT) + HEAD);
      }
      for (int i = 0; i < count; i++) {
        chained += insert(hashes[i], rows[i]);
      }
      touched += heads;
      count = 0;
    }

    /** Inserts what is buffered and publishes the loads' sum, so they are not dead code, and the rows chained. */
    void finish() {
      flush();
      touchedHeads.addAndGet(touched);
      chainedRows.addAndGet(chained);
    }
  }

  /** Inserts {@code row} of hash {@code h}; returns 1 when it is chained behind a row of the same hash, else 0. */
  private int insert(long h, int row) {
    long slot = h >>> shift;
    while (true) {
      long at = slot << SLOT_SHIFT;
      int head = table.get(INT, at + HEAD);
      if (head == 0) {
        table.set(HASH, at, h);
        table.set(INT, at + HEAD, row + 1);
        return 0; // the slot's more is still 0: no further rows
      }
      if (table.get(HASH, at) == h) {
        next.setAtIndex(INT, row, table.get(INT, at + MORE));
        table.set(INT, at + MORE, row + 1);
        return 1;
      }
      slot = following(slot);
    }
  }

  /** The slot probing visits after {@code slot}: the next one, wrapping around within its range. */
  private long following(long slot) {
    return (slot & ~rangeMask) | ((slot + 1) & rangeMask);
  }

  /**
   * Whether every hash in the table has one row: then a lookup finds at most one candidate row, and a
   * probe row at most one partner (where the key shape is not exact, that row's key must still be
   * confirmed). False as soon as two rows share a hash, whether their keys are equal or collide.
   */
  @Override
  public boolean oneRowPerEntry() {
    return chainedRows.get() == 0;
  }

  @Override
  public long bytes() {
    return tableBuffer.byteSize() + nextBuffer.byteSize();
  }

  @Override
  public String describe() {
    return "open-addressing table of " + bytes() + " bytes";
  }

  /** The entry of hash {@code h} (its rows, read with {@link #firstRow} and {@link #secondRow}), or 0 when no row has it. */
  public long entryOf(long h) {
    long slot = h >>> shift;
    long at = slot << SLOT_SHIFT;
    return resolve(h, slot, table.get(HASH, at), table.get(ENTRY, at + HEAD));
  }

  /**
   * Looks up {@code hashes[0, n)}: {@code entries[i]} receives the entry of {@code hashes[i]}, or 0.
   *
   * <p>One lookup after the other, with nothing between them but the slot's comparison: each is a
   * short run of instructions whose only miss is the home slot's line, so the out-of-order core keeps
   * the misses of many lookups in flight at once. Measured on workload A (16M keys, 512 MiB of slots),
   * this plain loop beat one that loads a group of home slots back to back before comparing any: the
   * group's loads and stores per lookup fill the reorder window sooner than the misses return.
   */
  public void entriesOf(long[] hashes, int n, long[] entries) {
    MemorySegment t = table;
    for (int i = 0; i < n; i++) {
      long h = hashes[i];
      long slot = h >>> shift;
      long at = slot << SLOT_SHIFT;
      entries[i] = resolve(h, slot, t.get(HASH, at), t.get(ENTRY, at + HEAD));
    }
  }

  /** Probes on from {@code slot}, whose hash and entry were read, to the entry of {@code h}, or 0. */
  long resolve(long h, long slot, long slotHash, long entry) {
    while (entry != 0 && slotHash != h) {
      slot = following(slot);
      long at = slot << SLOT_SHIFT;
      slotHash = table.get(HASH, at);
      entry = table.get(ENTRY, at + HEAD);
    }
    return entry;
  }

  /** Hands the hash of every key in the table (one per distinct key) to {@code action}, in slot order. */
  public void forEachKeyHash(LongConsumer action) {
    long slots = mask + 1;
    for (long slot = 0; slot < slots; slot++) {
      if (entryAt(slot) != 0) {
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

  /** The entry stored in {@code slot} (0 for an empty slot). */
  long entryAt(long slot) {
    return table.get(ENTRY, (slot << SLOT_SHIFT) + HEAD);
  }

  /** The first row of a found entry. */
  public static int firstRow(long entry) {
    return (int) entry - 1;
  }

  /** The second row of a found entry, or -1 when its key has one row. */
  public static int secondRow(long entry) {
    return (int) (entry >>> 32) - 1;
  }

  /** The row after {@code row} (not the first) in its key's chain, or -1 at the end. */
  @Override
  public int nextRow(int row) {
    return next.getAtIndex(INT, row) - 1;
  }

  /** Frees the slots and the chains; idempotent. */
  @Override
  public void close() {
    try {
      tableBuffer.close();
    } finally {
      nextBuffer.close();
    }
  }
}
