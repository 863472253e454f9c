package dev.memwall.join.algorithm;

import dev.memwall.core.partition.HashedTuples;
import dev.memwall.join.keys.KeyColumns;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The optimized non-partitioned hash join: an {@link OpenAddressingTable} built on the right input
 * (one 16-byte slot per distinct key; a probe of a unique key is one cache line and nothing else),
 * probed with the left input. Neither input is copied: the right one is streamed into the table
 * block by block, the left one through a probe block.
 *
 * <p>Batched probes: with {@code group > 1} the probe loop works on groups of that many keys. It
 * first computes every slot of the group and loads each slot's hash and entry, independent loads
 * whose cache misses the out-of-order core overlaps (memory-level parallelism: the JVM has no
 * prefetch instruction, so this is the "group prefetching" of seed 002 done with plain loads), then
 * resolves the group's keys one by one against slots that are now in the cache. With
 * {@code group == 1} it is the plain loop: one key at a time, load then compare.
 *
 * <p>Memory: 16 bytes per slot (2 to 4 per right row), 4 bytes per right row for the chains, a probe
 * block per probing thread. Thread safety: stateless.
 */
public final class OpenAddressingHashJoin implements JoinMethod<OpenAddressingHashJoin.Settings> {
  /** The algorithm. */
  public static final OpenAddressingHashJoin METHOD = new OpenAddressingHashJoin();
  /**
   * The default probe group, the one the planner's open-addressing cost was fitted with; on today's
   * cores the plain loop ({@code group == 1}) is about as fast, since the reorder window already
   * overlaps its misses (docs/benchmarks/joins.md).
   */
  public static final int DEFAULT_GROUP = 16;
  private static final ValueLayout.OfLong HASH = HashedTuples.HASH;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  /** Left blocks each probing thread should get at least: fewer and starting a thread costs more than it saves. */
  private static final int BLOCKS_PER_THREAD = 64;

  /**
   * How the join runs.
   *
   * @param group keys per probe group, 1 to {@value ProbeBlock#ROWS}; 1 is the plain, one-at-a-time loop
   * @param threads probing threads (at least 1); the table is built on the calling thread
   */
  public record Settings(int group, int threads) {
    public Settings {
      if (group < 1 || group > ProbeBlock.ROWS) {
        throw new IllegalArgumentException("probe group must be in 1.." + ProbeBlock.ROWS + ", got " + group);
      }
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be >= 1, got " + threads);
      }
    }
  }

  private OpenAddressingHashJoin() {}

  /** Working memory for the given input sizes, with one probe block per probing thread. */
  public static long bytesFor(long leftRows, long rightRows, long rightNullBound, int threads) {
    return OpenAddressingTable.bytesFor(rightRows) + Math.max(1, threads) * ProbeBlock.bytes();
  }

  @Override
  public long workingBytes(JoinInput sides, Settings settings) {
    return bytesFor(sides.left().rowCount(), sides.right().rowCount(), 0, settings.threads());
  }

  /**
   * Builds the table on the right input on the calling thread, then probes it with the left input's
   * blocks on {@link Settings#threads} threads (the table is only read while probing; each thread has
   * its own probe block and a {@linkplain JoinOutput#fork forked} output, so pairs arrive in no
   * particular order).
   */
  @Override
  public Details run(JoinInput input, JoinOutput out, Settings settings) {
    int group = settings.group();
    try (OpenAddressingTable table = OpenAddressingTable.build(input.right(), input.memory())) {
      ProbeBlocks blocks = new ProbeBlocks(input.left());
      int workers = Math.min(settings.threads(), Math.max(1, blocks.count() / BLOCKS_PER_THREAD));
      if (workers == 1) {
        probe(input, out, new Probe(input, out, table, group), blocks);
      } else {
        out.inParallel(workers, mine -> probe(input, mine, new Probe(input, mine, table, group), blocks));
      }
    }
    return NoDetails.NONE;
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
  static final class ProbeBlocks {
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

  /** The probe loops; fields hold what the loops read so they stay in registers. */
  private static final class Probe {
    private final OpenAddressingTable table;
    private final int group;
    private final RowMatcher matcher;
    private final long[] slotOf;
    private final long[] slotHash;
    private final long[] slotEntry;

    Probe(JoinInput input, JoinOutput out, OpenAddressingTable table, int group) {
      this.table = table;
      this.group = group;
      this.matcher = new RowMatcher(input, out);
      this.slotOf = new long[group];
      this.slotHash = new long[group];
      this.slotEntry = new long[group];
    }

    void probe(MemorySegment hashes, MemorySegment rows, int count) {
      if (group == 1) {
        plain(hashes, rows, count);
      } else {
        grouped(hashes, rows, count);
      }
    }

    void plain(MemorySegment hashes, MemorySegment rows, int count) {
      OpenAddressingTable t = table;
      for (int k = 0; k < count; k++) {
        long h = hashes.getAtIndex(HASH, k);
        long slot = t.homeSlot(h);
        resolve(h, rows.getAtIndex(INT, k), slot, t.hashAt(slot), t.entryAt(slot));
      }
    }

    void grouped(MemorySegment hashes, MemorySegment rows, int count) {
      OpenAddressingTable t = table;
      long[] slots = slotOf;
      long[] seen = slotHash;
      long[] entries = slotEntry;
      for (int g = 0; g < count; g += group) {
        int n = Math.min(group, count - g);
        for (int k = 0; k < n; k++) { // stage 1: every slot of the group, loads issued back to back
          long slot = t.homeSlot(hashes.getAtIndex(HASH, g + k));
          slots[k] = slot;
          seen[k] = t.hashAt(slot);
          entries[k] = t.entryAt(slot);
        }
        for (int k = 0; k < n; k++) { // stage 2: compare, follow collisions and chains
          resolve(hashes.getAtIndex(HASH, g + k), rows.getAtIndex(INT, g + k), slots[k], seen[k], entries[k]);
        }
      }
    }

    private void resolve(long h, int leftRow, long home, long homeHash, long homeEntry) {
      long entry = table.resolve(h, home, homeHash, homeEntry);
      if (entry != 0 && !matcher.offer(leftRow, OpenAddressingTable.firstRow(entry))) {
        for (int e = OpenAddressingTable.secondRow(entry); e >= 0; e = table.nextRow(e)) {
          if (matcher.offer(leftRow, e)) {
            break;
          }
        }
      }
      matcher.finish(leftRow);
    }
  }
}
