package dev.memwall.core.operator;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.spill.SpillFile;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The spill format of a {@link SpillingAggregation}: a <em>run</em> is every group of one
 * {@link HashAggregator} at the moment it spilled, as fixed-width partial-state records
 * ({@link HashAggregator#writeRecord}: key tuple, row count, each accumulator's value and null count),
 * split by partition and appended to a {@link SpillFile} in blocks, each block holding records of one
 * partition. The groups are read in their order in the table (sequentially, so the table's keys and
 * columns stream through the cache instead of being gathered at random) and scattered into one
 * staging block per partition, which is appended when full. Where the blocks of each partition lie is
 * kept on the heap as {@link Segment}s; a partition is then read back block by block.
 *
 * <p>A group's partition is taken from its key hash, remixed with a seed of the level, so that the
 * partitions of each level cut differently and independently of the bits the hash tables use for
 * their slots.
 *
 * <p>The same runs serve a partitioned aggregation that has not run out of memory: a writer made
 * {@linkplain Writer#Writer(EngineMemory, Function, int, int) in memory} keeps each block in an
 * off-heap buffer of the operator's working memory instead of appending it to a file, and once a
 * buffer is refused (or the operator {@linkplain Writer#toDisk spills}) it goes on to a file with the
 * same partitions, so that a partition's segments may lie partly in memory and partly on disk and
 * are read alike. A partition's buffers are freed by {@link #release} once it is aggregated, the
 * rest by {@link Writer#releaseMemory}.
 *
 * <p>The staging blocks are on the heap (at most {@value #STAGING_BYTES} bytes for all partitions
 * together, beside the workers' other chunk-sized scratch arrays), so that spilling needs no memory
 * from the budget that just refused some. Thread safety: a {@link Writer} is for one thread, and a
 * file is written by one writer at a time.
 */
final class PartialRuns {
  /** Bytes of the staging blocks of a writer, all partitions together, and of the block a reader reads into. */
  static final int STAGING_BYTES = 2 << 20;
  /** The largest block of one partition. */
  private static final int MAX_BLOCK_BYTES = 64 << 10;

  private PartialRuns() {}

  /**
   * A byte range holding records of one partition: of a spill file, or (where {@code block} is not
   * null, {@code file} then null) of an off-heap buffer in memory.
   */
  record Segment(SpillFile file, OffHeapBuffer block, long from, long to) {
    long bytes() {
      return to - from;
    }
  }

  /** Frees the in-memory blocks of {@code segments} (a partition aggregated); those on disk stay with their file. */
  static void release(List<Segment> segments) {
    for (Segment segment : segments) {
      if (segment.block() != null) {
        segment.block().close();
      }
    }
  }

  /** The partition among {@code 1 << bits} of a key hash at {@code level} of re-partitioning. */
  static int partition(long hash, int level, int bits) {
    long h = hash ^ (0x9E3779B97F4A7C15L * (level + 1));
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    h ^= h >>> 33;
    return bits == 0 ? 0 : (int) (h >>> (64 - bits));
  }

  /** Empty segment lists, one per partition of {@code bits} bits. */
  static List<List<Segment>> partitions(int bits) {
    List<List<Segment>> partitions = new ArrayList<>();
    for (int p = 0; p < 1 << bits; p++) {
      partitions.add(new ArrayList<>());
    }
    return partitions;
  }

  /**
   * Writes runs of one level's partitions to one file, or into memory until memory is refused,
   * through a staging block per partition.
   */
  static final class Writer {
    /** Where the blocks go; null while they stay in {@link #memory}. */
    private SpillFile file;
    /** Where blocks are kept while {@link #file} is null. */
    private final EngineMemory memory;
    /** The file to go on in when memory refuses a block; it may throw the refusal, named, instead. */
    private final Function<BudgetExceededException, SpillFile> onRefusal;
    private final int level;
    private final int bits;
    private final int recordBytes;
    private final int blockBytes;
    private final MemorySegment[] blocks;
    private final int[] filled;
    /** Per partition, the segments written so far (all runs). */
    final List<List<Segment>> partitions;

    Writer(SpillFile file, int level, int bits, int recordBytes) {
      this(file, null, null, level, bits, recordBytes);
    }

    /**
     * A writer of level 0 keeping its blocks in off-heap buffers of {@code memory}; when a buffer is
     * refused it asks {@code onRefusal} for a file and writes that block and all later ones there.
     */
    Writer(EngineMemory memory, Function<BudgetExceededException, SpillFile> onRefusal, int bits, int recordBytes) {
      this(null, memory, onRefusal, 0, bits, recordBytes);
    }

    private Writer(SpillFile file, EngineMemory memory, Function<BudgetExceededException, SpillFile> onRefusal,
        int level, int bits, int recordBytes) {
      this.file = file;
      this.memory = memory;
      this.onRefusal = onRefusal;
      this.level = level;
      this.bits = bits;
      this.recordBytes = recordBytes;
      int partitions = 1 << bits;
      int block = Math.min(MAX_BLOCK_BYTES, STAGING_BYTES / partitions) / recordBytes * recordBytes;
      this.blockBytes = Math.max(recordBytes, block);
      this.blocks = new MemorySegment[partitions];
      this.filled = new int[partitions];
      this.partitions = PartialRuns.partitions(bits);
    }

    /**
     * Appends groups {@code [from, groups)} of {@code source} as one run; checks for cancellation once
     * per block written.
     */
    void write(HashAggregator source, int from) {
      add(source, from);
      flush();
    }

    /** Writes what the staging blocks hold (a run's end). */
    void flush() {
      for (int p = 0; p < filled.length; p++) {
        flush(p);
      }
    }

    /**
     * Stages groups {@code [from, groups)} of {@code source}, appending the blocks that fill; the rest
     * waits in the blocks for more groups or {@link #flush}. Checks for cancellation once per block
     * written.
     */
    void add(HashAggregator source, int from) {
      int groups = source.groups();
      for (int g = from; g < groups; g++) {
        int p = partition(source.hashOf(g), level, bits);
        if (blocks[p] == null) {
          blocks[p] = MemorySegment.ofArray(new byte[blockBytes]);
        } else if (filled[p] + recordBytes > blockBytes) {
          flush(p);
        }
        source.writeRecord(g, blocks[p], filled[p]);
        filled[p] += recordBytes;
      }
    }

    /** Whether the blocks go to a file (from the start, or since memory was refused). */
    boolean onDisk() {
      return file != null;
    }

    /**
     * Writes the blocks kept in memory and all later ones to the file {@code files} gives, freeing
     * the memory, unless they go to a file already; a spill.
     */
    void toDisk(Supplier<SpillFile> files) {
      if (file == null) {
        file = files.get();
        moveToDisk();
      }
    }

    /** Appends every block still in memory to the file, in place of its buffer, and frees the buffer. */
    private void moveToDisk() {
      for (List<Segment> segments : partitions) {
        for (int i = 0; i < segments.size(); i++) {
          Segment segment = segments.get(i);
          if (segment.block() != null && !segment.block().isClosed()) {
            ExecutionControl.checkpoint();
            long at = file.size();
            file.append(segment.block().segment().asSlice(segment.from(), segment.bytes()));
            segments.set(i, new Segment(file, null, at, at + segment.bytes()));
            segment.block().close();
          }
        }
      }
    }

    /** Frees the blocks kept in memory; those of partitions already {@linkplain #release released} stay freed. */
    void releaseMemory() {
      for (List<Segment> segments : partitions) {
        release(segments);
      }
    }

    /** Frees the blocks in memory and deletes the file, with every run written to it. */
    void close() {
      releaseMemory();
      if (file != null) {
        file.delete();
      }
    }

    private void flush(int p) {
      if (filled[p] == 0) {
        return;
      }
      ExecutionControl.checkpoint();
      if (file == null) {
        try {
          OffHeapBuffer block = memory.allocate(filled[p]);
          MemorySegment.copy(blocks[p], 0, block.segment(), 0, filled[p]);
          partitions.get(p).add(new Segment(null, block, 0, filled[p]));
          filled[p] = 0;
          return;
        } catch (BudgetExceededException e) {
          file = onRefusal.apply(e); // the blocks so far, this one and the next ones go to disk
          moveToDisk();
        }
      }
      long at = file.size();
      file.append(blocks[p].asSlice(0, filled[p]));
      List<Segment> segments = partitions.get(p);
      Segment last = segments.isEmpty() ? null : segments.getLast();
      if (last != null && last.file() == file && last.to() == at) {
        segments.set(segments.size() - 1, new Segment(file, null, last.from(), at + filled[p])); // back to back: one read
      } else {
        segments.add(new Segment(file, null, at, at + filled[p]));
      }
      filled[p] = 0;
    }
  }

  /** A heap block for reading records of {@code recordBytes} back, holding whole records. */
  static byte[] readBlock(int recordBytes) {
    return new byte[Math.max(recordBytes, MAX_BLOCK_BYTES * 4 / recordBytes * recordBytes)];
  }

  /** Receives blocks of whole records read back. */
  interface BlockVisitor {
    /** {@code count} records lie back to back from offset 0 of {@code block}. */
    void visit(MemorySegment block, int count);
  }

  /**
   * Reads every record of {@code segments} back, a block at a time (a block in memory as it lies,
   * without a copy); checks for cancellation once per block.
   */
  static void read(List<Segment> segments, int recordBytes, byte[] staging, BlockVisitor visitor) {
    MemorySegment block = MemorySegment.ofArray(staging);
    long perBlock = (long) (staging.length / recordBytes) * recordBytes;
    for (Segment segment : segments) {
      if (segment.block() != null) {
        ExecutionControl.checkpoint();
        visitor.visit(segment.block().segment().asSlice(segment.from(), segment.bytes()),
            (int) (segment.bytes() / recordBytes));
        continue;
      }
      for (long at = segment.from(); at < segment.to(); ) {
        ExecutionControl.checkpoint();
        long bytes = Math.min(perBlock, segment.to() - at);
        segment.file().read(at, block.asSlice(0, bytes));
        visitor.visit(block, (int) (bytes / recordBytes));
        at += bytes;
      }
    }
  }

  /** The records in {@code segments}. */
  static long records(List<Segment> segments, int recordBytes) {
    long bytes = 0;
    for (Segment segment : segments) {
      bytes += segment.bytes();
    }
    return bytes / recordBytes;
  }

  /**
   * Bits of partitions to split into when memory filled after {@code done} of {@code total} units
   * of the input (rows, records): about twice the input over what fit, so each partition fits with
   * room to spare if groups grow with the input, between 4 and 256 partitions.
   */
  static int bitsFor(double done, double total) {
    double ratio = done <= 0 ? 256 : 2 * total / done;
    int bits = 64 - Long.numberOfLeadingZeros((long) Math.ceil(Math.max(1, ratio)) - 1);
    return Math.clamp(bits, 2, 8);
  }
}
