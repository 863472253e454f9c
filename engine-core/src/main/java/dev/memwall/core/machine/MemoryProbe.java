package dev.memwall.core.machine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * The measurement kernels of the calibrator, on off-heap memory the caller owns.
 *
 * <ul>
 *   <li>{@link #buildRing}: one random cycle through the cache lines of a working set (Sattolo's
 *       shuffle), each line holding the offset of the next: following it defeats every prefetcher.
 *       {@link #buildPageRing} does the same with one line per page, to measure the TLB.
 *   <li>{@link #chase}: a dependent pointer chase, one load waiting for the previous: its time per
 *       step is the latency of the level the working set fits in (T1 once it exceeds the caches).
 *   <li>{@link #chaseParallel}: {@value #CHAINS} independent chases interleaved, so their misses
 *       overlap: the time per round gives Tnext and the memory-level parallelism.
 *   <li>{@link #read}, {@link #write}, {@link #copy}: sequential bandwidth kernels.
 *   <li>{@link #strideScan}: the simple scan of seed 000 (section 2.1): one byte read every
 *       {@code stride} bytes, the accesses independent of each other.
 *   <li>{@link #filterBelow}: a filter with a data-dependent branch, whose time over random
 *       against sorted values gives the cost of a mispredicted branch.
 * </ul>
 *
 * <p>Thread safety: stateless; concurrent calls on disjoint memory are independent.
 */
public final class MemoryProbe {
  /**
   * Independent chains in {@link #chaseParallel}: at least as many misses as a current x86 core keeps
   * in flight (10 to 16 line-fill buffers), so that a round is bound by their throughput rather
   * than by one miss's latency (with fewer, a round can overlap them all within one T1).
   */
  public static final int CHAINS = 16;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

  private MemoryProbe() {}

  /**
   * Links {@code workingSetBytes / strideBytes} nodes, {@code strideBytes} apart, into one random
   * cycle starting at offset 0.
   *
   * @return the starting offsets of {@link #CHAINS} chains spread evenly along the cycle
   */
  public static long[] buildRing(MemorySegment memory, long workingSetBytes, int strideBytes, long seed) {
    int nodes = Math.toIntExact(workingSetBytes / strideBytes);
    if (nodes < 2 || strideBytes < Long.BYTES || workingSetBytes > memory.byteSize()) {
      throw new IllegalArgumentException("a ring needs at least 2 nodes of >= 8 bytes inside the memory: "
          + workingSetBytes + " bytes at stride " + strideBytes + " in " + memory.byteSize());
    }
    return link(memory, nodes, node -> (long) node * strideBytes, seed);
  }

  /**
   * Links one cache line in each of {@code pages} consecutive pages of {@code pageBytes} into one
   * random cycle: every access touches another page, so once the pages outnumber the TLB's
   * entries every access also misses the TLB. The line's offset within its page rotates through
   * 64 positions so the lines spread over the cache's sets instead of fighting over one.
   *
   * @return the starting offsets of {@link #CHAINS} chains spread evenly along the cycle
   */
  public static long[] buildPageRing(MemorySegment memory, int pages, long pageBytes, long seed) {
    if (pages < 2 || pages * pageBytes > memory.byteSize() || pageBytes < 64 * 64) {
      throw new IllegalArgumentException("a page ring needs at least 2 pages of >= 4 KiB inside the memory: "
          + pages + " pages of " + pageBytes + " bytes in " + memory.byteSize());
    }
    return link(memory, pages, page -> page * pageBytes + (page % 64) * 64L, seed);
  }

  /**
   * Links blocks of {@code blockBytes} into one random cycle with two stops per block: its last
   * long, then the long {@code distance} bytes before it, which points at the next block. The second
   * load depends on the first, so it costs a hit while {@code distance} stays inside the line the
   * first load brought in, and another miss once it crosses into the previous line: the
   * latency-versus-stride curve that measures a cache's line size. (Backwards, as Manegold's
   * calibrator walks, so that next-line prefetchers do not fetch the second line early.)
   *
   * @return the starting offsets of {@link #CHAINS} chains; each block is two steps of {@link #chase}
   */
  public static long[] buildPairRing(MemorySegment memory, int blocks, int blockBytes, int distance, long seed) {
    int first = blockBytes - Long.BYTES;
    if (distance < Long.BYTES || distance > first || (long) blocks * blockBytes > memory.byteSize()) {
      throw new IllegalArgumentException("a pair ring needs the second stop inside its block and the blocks inside the"
          + " memory: distance " + distance + ", " + blocks + " blocks of " + blockBytes + " in " + memory.byteSize());
    }
    long[] starts = link(memory, blocks, node -> (long) node * blockBytes + first, seed);
    for (long block = 0; block < (long) blocks * blockBytes; block += blockBytes) {
      memory.set(LONG, block + first - distance, memory.get(LONG, block + first));
      memory.set(LONG, block + first, block + first - distance);
    }
    return starts;
  }

  private static long[] link(MemorySegment memory, int nodes, java.util.function.IntToLongFunction offsetOf, long seed) {
    int[] order = new int[nodes];
    for (int i = 0; i < nodes; i++) {
      order[i] = i;
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = nodes - 1; i > 0; i--) { // Sattolo: a single cycle through all nodes
      int j = random.nextInt(i);
      int swap = order[i];
      order[i] = order[j];
      order[j] = swap;
    }
    // order is a cyclic permutation: node i's successor is order[i].
    for (int i = 0; i < nodes; i++) {
      memory.set(LONG, offsetOf.applyAsLong(i), offsetOf.applyAsLong(order[i]));
    }
    long[] starts = new long[CHAINS];
    long at = offsetOf.applyAsLong(0);
    int spacing = Math.max(1, nodes / CHAINS);
    for (int chain = 0; chain < CHAINS; chain++) {
      starts[chain] = at;
      for (int s = 0; s < spacing; s++) {
        at = memory.get(LONG, at);
      }
    }
    return starts;
  }

  /** Follows the ring {@code steps} times from {@code start}; returns where it ended. */
  public static long chase(MemorySegment ring, long start, long steps) {
    long at = start;
    for (long s = 0; s < steps; s++) {
      at = ring.get(LONG, at);
    }
    return at;
  }

  /**
   * Advances {@link #CHAINS} chases {@code rounds} times each, interleaved; returns a checksum. The
   * chases are local variables, not an array, so that each step is one load into a register.
   */
  public static long chaseParallel(MemorySegment ring, long[] starts, long rounds) {
    long c0 = starts[0];
    long c1 = starts[1];
    long c2 = starts[2];
    long c3 = starts[3];
    long c4 = starts[4];
    long c5 = starts[5];
    long c6 = starts[6];
    long c7 = starts[7];
    long c8 = starts[8];
    long c9 = starts[9];
    long c10 = starts[10];
    long c11 = starts[11];
    long c12 = starts[12];
    long c13 = starts[13];
    long c14 = starts[14];
    long c15 = starts[15];
    for (long r = 0; r < rounds; r++) {
      c0 = ring.get(LONG, c0);
      c1 = ring.get(LONG, c1);
      c2 = ring.get(LONG, c2);
      c3 = ring.get(LONG, c3);
      c4 = ring.get(LONG, c4);
      c5 = ring.get(LONG, c5);
      c6 = ring.get(LONG, c6);
      c7 = ring.get(LONG, c7);
      c8 = ring.get(LONG, c8);
      c9 = ring.get(LONG, c9);
      c10 = ring.get(LONG, c10);
      c11 = ring.get(LONG, c11);
      c12 = ring.get(LONG, c12);
      c13 = ring.get(LONG, c13);
      c14 = ring.get(LONG, c14);
      c15 = ring.get(LONG, c15);
    }
    return c0 ^ c1 ^ c2 ^ c3 ^ c4 ^ c5 ^ c6 ^ c7
        ^ c8 ^ c9 ^ c10 ^ c11 ^ c12 ^ c13 ^ c14 ^ c15;
  }

  /** Sums {@code memory} as longs (a sequential read). */
  public static long read(MemorySegment memory) {
    long sum = 0;
    long count = memory.byteSize() / Long.BYTES;
    for (long i = 0; i < count; i++) {
      sum += memory.getAtIndex(LONG, i);
    }
    return sum;
  }

  /** Writes {@code value} to every long of {@code memory} (a sequential write). */
  public static void write(MemorySegment memory, long value) {
    long count = memory.byteSize() / Long.BYTES;
    for (long i = 0; i < count; i++) {
      memory.setAtIndex(LONG, i, value);
    }
  }

  /**
   * Reads one byte at offsets {@code 0, stride, 2 * stride, ...} ({@code iterations} of them), each
   * offset ANDed with {@code wrapMask}: {@code -1} scans forward, a power of two minus one keeps the
   * scan inside that many bytes (the same instructions over a working set that stays in L1).
   *
   * @return the sum of the bytes read, so the loads are not optimized away
   */
  public static long strideScan(MemorySegment memory, int stride, int iterations, long wrapMask) {
    long sum = 0;
    long offset = 0;
    for (int i = 0; i < iterations; i++) {
      sum += memory.get(ValueLayout.JAVA_BYTE, offset & wrapMask);
      offset += stride;
    }
    return sum;
  }

  /** Copies the first half of {@code memory} over the second. */
  public static void copy(MemorySegment memory) {
    long half = memory.byteSize() / 2;
    MemorySegment.copy(memory, 0, memory, half, half);
  }

  /**
   * Counts the ints of {@code values} below {@code threshold}, storing each one found into
   * {@code scratch} (cyclically: the {@code k}-th at index {@code k mod} its size, so the scratch
   * stays in L1). The conditional store keeps the branch a branch (the JIT cannot turn it into a
   * conditional move), so over random values about half its outcomes are mispredicted and over
   * sorted values almost none.
   *
   * @throws IllegalArgumentException unless {@code scratch} holds a power of two of ints
   */
  public static int filterBelow(MemorySegment values, int threshold, MemorySegment scratch) {
    long scratchInts = scratch.byteSize() / Integer.BYTES;
    if (Long.bitCount(scratchInts) != 1 || scratchInts > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("the scratch must hold a power of two of ints, not " + scratch.byteSize()
          + " bytes");
    }
    int mask = (int) scratchInts - 1;
    long count = values.byteSize() / Integer.BYTES;
    int kept = 0;
    for (long i = 0; i < count; i++) {
      int value = values.getAtIndex(INT, i);
      if (value < threshold) {
        scratch.setAtIndex(INT, kept++ & mask, value);
      }
    }
    return kept;
  }
}
