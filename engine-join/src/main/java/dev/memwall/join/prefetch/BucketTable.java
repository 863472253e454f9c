package dev.memwall.join.prefetch;

import dev.memwall.core.hash.Remainders;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The thesis's in-memory hash table for one build partition (seed 002, section 4.2): an array of
 * bucket headers, each holding the bucket's cell count and one inline cell, and per bucket a cell
 * array for further cells that doubles when full. A cell is (4-byte hash code, tuple index), so a
 * probe compares hash codes without touching build tuples and only follows a cell to its tuple on
 * a code match.
 *
 * <p>The bucket of a tuple is its stored hash code modulo the table size, and the table size is
 * chosen coprime with the partition count: the codes of one partition all share their residue
 * modulo the partition count and would otherwise crowd into a fraction of the buckets.
 *
 * <pre>
 *   header (16 bytes): int count | int inline code | int inline tuple | int offset of the cell array
 *   cell   (8 bytes):  int code  | int tuple
 * </pre>
 *
 * Cell arrays are carved from one arena; a bucket's array of capacity c (a power of two, at least
 * 2) is replaced by one of 2c, the old one left unused. The arena doubles (with a copy) when it runs
 * out. Buffers are kept between partitions and grown only when a larger partition comes. Tuples,
 * headers and cells are on transparent huge pages where the platform gives them: a probe's
 * references are random, and on base pages each would add a page walk to its cache miss.
 *
 * <p>Ownership: closes its buffers, charged to the given memory. Thread safety: one thread.
 */
public final class BucketTable implements AutoCloseable {
  public static final int HEADER_BYTES = 16;
  public static final int CELL_BYTES = 8;
  /** Bytes the table needs per build tuple, tuple included: 16 (tuple) + 16 (header) + about 8 (cells). */
  public static final int BYTES_PER_TUPLE = SpillRecords.BYTES + HEADER_BYTES + CELL_BYTES;

  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  /** The busy flag of a bucket header's count word, set by group and pipelined builds while an insert is in flight. */
  public static final int BUSY = 0x8000_0000;
  /** The count bits of a header's count word. */
  public static final int COUNT_MASK = 0x7FFF_FFFF;

  private final EngineMemory memory;
  private final int tupleBytes;
  private OffHeapBuffer tupleBuffer;
  private OffHeapBuffer headerBuffer;
  private OffHeapBuffer arenaBuffer;
  MemorySegment tuples;
  MemorySegment headers;
  MemorySegment cells;
  int size;
  int tableSize;
  /** {@link Remainders#reciprocal} of the table size, so that a bucket costs two multiplications instead of a division. */
  private long tableReciprocal;
  private int arenaUsed;

  /** A table over the 16-byte tuples of partition pages (code, row, key). */
  public BucketTable(EngineMemory memory) {
    this(memory, SpillRecords.BYTES);
  }

  /**
   * A table over wider tuples: each {@code tupleBytes} long, starting with the 16-byte (code, row,
   * key) and followed by payload the table never reads (the thesis's tuple sizes, for the join-phase
   * benchmarks).
   *
   * @throws IllegalArgumentException if {@code tupleBytes} is under 16 or not a multiple of 8
   */
  public BucketTable(EngineMemory memory, int tupleBytes) {
    this.memory = memory;
    this.tupleBytes = checkTupleBytes(tupleBytes, "build");
  }

  /**
   * {@code tupleBytes} if it can hold the 16-byte (code, row, key) head at every tuple with the key
   * aligned: at least 16 and a multiple of 8.
   *
   * @param side what the tuples are, for the message
   * @throws IllegalArgumentException otherwise
   */
  public static int checkTupleBytes(int tupleBytes, String side) {
    if (tupleBytes < SpillRecords.BYTES || tupleBytes % 8 != 0) {
      throw new IllegalArgumentException(side + " tuples must be at least 16 bytes and a multiple of 8, got "
          + tupleBytes);
    }
    return tupleBytes;
  }

  /** The smallest table size of at least {@code n} (and 3) coprime with {@code partitions}. */
  public static int tableSize(int n, int partitions) {
    int t = Math.max(3, n) | 1;
    while (gcd(t, Math.max(1, partitions)) != 1) {
      t += 2;
    }
    return t;
  }

  static int gcd(int a, int b) {
    while (b != 0) {
      int r = a % b;
      a = b;
      b = r;
    }
    return a;
  }

  /** A segment to load {@code n} build tuples into before {@link #build}; valid until the next call. */
  public MemorySegment tupleSpace(int n) {
    long bytes = Math.max(tupleBytes, (long) n * tupleBytes);
    if (tupleBuffer == null || tupleBuffer.byteSize() < bytes) {
      if (tupleBuffer != null) {
        tupleBuffer.close();
        tupleBuffer = null;
      }
      tupleBuffer = memory.allocate(bytes, Placement.HUGE_PAGES);
    }
    tuples = tupleBuffer.segment();
    return tuples.asSlice(0, (long) n * tupleBytes);
  }

  /** Builds the table over the first {@code n} tuples of {@link #tupleSpace}, for a partition count of {@code partitions}. */
  public void build(int n, int partitions) {
    reset(n, partitions);
    MemorySegment t = tuples;
    for (int i = 0; i < n; i++) {
      int code = t.get(INT, (long) i * tupleBytes + SpillRecords.CODE);
      insert(header(code), code, i);
    }
  }

  /**
   * Clears the table and sizes it for {@code n} tuples of {@link #tupleSpace} without inserting them,
   * for builds that insert themselves ({@link dev.memwall.join.prefetch.PrefetchingHashJoin}).
   */
  public void reset(int n, int partitions) {
    size = n;
    tableSize = tableSize(n, partitions);
    tableReciprocal = Remainders.reciprocal(tableSize);
    long headerBytes = (long) tableSize * HEADER_BYTES;
    if (headerBuffer == null || headerBuffer.byteSize() < headerBytes) {
      if (headerBuffer != null) {
        headerBuffer.close();
        headerBuffer = null;
      }
      headerBuffer = memory.allocate(headerBytes, Placement.HUGE_PAGES);
    }
    headers = headerBuffer.segment();
    headers.asSlice(0, headerBytes).fill((byte) 0);
    if (arenaBuffer == null) {
      arenaBuffer = memory.allocate(Math.max(64L, (long) Math.max(n, 8) * CELL_BYTES), Placement.HUGE_PAGES);
    }
    cells = arenaBuffer.segment();
    arenaUsed = 0;
  }

  /**
   * Inserts tuple {@code tuple} with hash code {@code code} into the bucket whose header is at byte
   * {@code header}: into the inline cell when the bucket is empty, else at the end of its cell array,
   * doubling the array when full. Clears the bucket's busy flag.
   */
  public void insert(long header, int code, int tuple) {
    MemorySegment h = headers;
    int count = h.get(INT, header) & COUNT_MASK;
    if (count == 0) {
      h.set(INT, header + 4, code);
      h.set(INT, header + 8, tuple);
    } else {
      int overflow = count - 1;
      int offset = h.get(INT, header + 12);
      if (overflow == capacity(overflow)) {
        int grown = overflow == 0 ? 2 : overflow * 2;
        int moved = allocateCells(grown);
        MemorySegment.copy(cells, (long) offset * CELL_BYTES, cells, (long) moved * CELL_BYTES,
            (long) overflow * CELL_BYTES);
        offset = moved;
        h.set(INT, header + 12, offset);
      }
      long cell = (long) (offset + overflow) * CELL_BYTES;
      cells.set(INT, cell, code);
      cells.set(INT, cell + 4, tuple);
    }
    h.set(INT, header, count + 1);
  }

  /** The capacity of a cell array holding {@code overflow} cells: 0, else a power of two of at least 2. */
  static int capacity(int overflow) {
    return overflow == 0 ? 0 : Math.max(2, Integer.highestOneBit(overflow - 1) << 1);
  }

  private int allocateCells(int count) {
    long needed = (long) (arenaUsed + count) * CELL_BYTES;
    if (needed > cells.byteSize()) {
      OffHeapBuffer grown = memory.allocate(Math.max(needed, cells.byteSize() * 2), Placement.HUGE_PAGES);
      grown.segment().copyFrom(cells.asSlice(0, (long) arenaUsed * CELL_BYTES));
      arenaBuffer.close();
      arenaBuffer = grown;
      cells = grown.segment();
    }
    int at = arenaUsed;
    arenaUsed += count;
    return at;
  }

  /** Build tuples in the table. */
  public int size() {
    return size;
  }

  /** The bucket headers: {@link #tableSize()} of 16 bytes (count, inline code, inline tuple, cell array offset). */
  public MemorySegment headers() {
    return headers;
  }

  /** The cell arena: 8-byte cells (code, tuple); valid until the next insert. */
  public MemorySegment cells() {
    return cells;
  }

  /** The build tuples, {@link #tupleBytes()} each, starting with (code, row, key). */
  public MemorySegment tuples() {
    return tuples;
  }

  /** Bytes per build tuple: 16 unless the table was made for wider tuples. */
  public int tupleBytes() {
    return tupleBytes;
  }

  public int tableSize() {
    return tableSize;
  }

  /** Byte offset of the bucket header of {@code code}. */
  public long header(int code) {
    return (long) Remainders.remainder(code, tableReciprocal, tableSize) * HEADER_BYTES;
  }

  @Override
  public void close() {
    if (tupleBuffer != null) {
      tupleBuffer.close();
      tupleBuffer = null;
    }
    if (headerBuffer != null) {
      headerBuffer.close();
      headerBuffer = null;
    }
    if (arenaBuffer != null) {
      arenaBuffer.close();
      arenaBuffer = null;
    }
  }
}
