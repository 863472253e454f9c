package dev.memwall.core.operator;

import dev.memwall.core.concurrent.ExecutionControl;
import dev.memwall.core.spill.SpillFile;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The spill format of a {@link SpillingAggregation}: a <em>run</em> is every group of one
 * {@link HashAggregator} at the moment it spilled, as fixed-width partial-state records
 * ({@link HashAggregator#writeRecord}: key tuple, row count, each accumulator's value and null count),
 * ordered by partition, appended to a {@link SpillFile}; the run is described by the file offsets at
 * which its partitions start ({@code offsets[p]}, with {@code offsets[P]} its end), kept on the heap.
 * A partition of a file is then one contiguous segment of each run, read back in blocks.
 *
 * <p>A group's partition is taken from its key hash, remixed with a seed of the level, so that the
 * partitions of each level cut differently and independently of the bits the hash tables use for
 * their slots.
 *
 * <p>Records pass through a heap staging buffer, like the workers' other chunk-sized scratch arrays,
 * so that spilling needs no memory from the budget that just refused some. Thread safety: stateless;
 * a file is written by one thread at a time.
 */
final class PartialRuns {
  /** Bytes of the staging buffer records are gathered in before a write, and read into. */
  static final int STAGING_BYTES = 64 << 10;

  private PartialRuns() {}

  /** A byte range of a spill file: one partition of one run. */
  record Segment(SpillFile file, long from, long to) {
    long bytes() {
      return to - from;
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

  /** A staging buffer holding whole records of {@code recordBytes}, at least one. */
  static byte[] staging(int recordBytes) {
    return new byte[Math.max(recordBytes, STAGING_BYTES / recordBytes * recordBytes)];
  }

  /**
   * Appends groups {@code [from, groups)} of {@code source} to {@code file} as one run of
   * {@code 1 << bits} partitions at {@code level}; returns its partition offsets. Checks for
   * cancellation once per block written.
   */
  static long[] write(HashAggregator source, int from, int level, int bits, SpillFile file, byte[] staging) {
    int partitions = 1 << bits;
    int n = source.groups() - from;
    int[] partitionOf = new int[n];
    int[] starts = new int[partitions + 1];
    for (int i = 0; i < n; i++) {
      int p = partition(source.hashOf(from + i), level, bits);
      partitionOf[i] = p;
      starts[p + 1]++;
    }
    for (int p = 0; p < partitions; p++) {
      starts[p + 1] += starts[p];
    }
    int[] order = new int[n];
    int[] next = java.util.Arrays.copyOf(starts, partitions);
    for (int i = 0; i < n; i++) {
      order[next[partitionOf[i]]++] = from + i;
    }
    int recordBytes = source.recordBytes();
    long base = file.size();
    MemorySegment block = MemorySegment.ofArray(staging);
    int perBlock = staging.length / recordBytes;
    for (int i = 0; i < n; ) {
      ExecutionControl.checkpoint();
      int count = Math.min(perBlock, n - i);
      for (int j = 0; j < count; j++) {
        source.writeRecord(order[i + j], block, (long) j * recordBytes);
      }
      file.append(block.asSlice(0, (long) count * recordBytes));
      i += count;
    }
    long[] offsets = new long[partitions + 1];
    for (int p = 0; p <= partitions; p++) {
      offsets[p] = base + (long) starts[p] * recordBytes;
    }
    return offsets;
  }

  /** Partition {@code p}'s segment of every run in {@code runs} (offsets of runs in {@code file}), empty ones left out. */
  static List<Segment> segments(SpillFile file, List<long[]> runs, int p, List<Segment> into) {
    for (long[] offsets : runs) {
      if (offsets[p + 1] > offsets[p]) {
        into.add(new Segment(file, offsets[p], offsets[p + 1]));
      }
    }
    return into;
  }

  /** Segments of partition {@code p} of several files' runs. */
  static List<Segment> segments(List<SpillFile> files, List<List<long[]>> runs, int p) {
    List<Segment> segments = new ArrayList<>();
    for (int f = 0; f < files.size(); f++) {
      segments(files.get(f), runs.get(f), p, segments);
    }
    return segments;
  }

  /** Receives blocks of whole records read back. */
  interface BlockVisitor {
    /** {@code count} records lie back to back from offset 0 of {@code block}. */
    void visit(MemorySegment block, int count);
  }

  /** Reads every record of {@code segments} back, a staging buffer at a time; checks for cancellation once per block. */
  static void read(List<Segment> segments, int recordBytes, byte[] staging, BlockVisitor visitor) {
    MemorySegment block = MemorySegment.ofArray(staging);
    long perBlock = (long) (staging.length / recordBytes) * recordBytes;
    for (Segment segment : segments) {
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
