package dev.memwall.join.prefetch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.hash.Hashing;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Every form of the partition loop (plain, group, pipelined; any G and D) against a trivial
 * reference: records appended one by one to a list per partition, cut into pages of
 * {@code pageBytes / recordBytes} records. The forms must hand the sink exactly the reference's pages
 * in the reference's order (which implies the same records per partition, in input order), for record
 * widths of 4 to 160 bytes, 1 to 1000 partitions, pages of one record to a few dozen (with slack
 * bytes a record does not fit), inputs empty, tiny or larger, codes uniform, from a few values or all
 * one partition, both routings, and input split over several batches.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class PrefetchingPartitionerProperties {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

  /** How codes are spread over the input. */
  enum Skew { UNIFORM, FEW_CODES, ONE_PARTITION }

  /** One flush: the partition and the page's bytes. */
  record Flush(int partition, byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Flush f && f.partition == partition && Arrays.equals(f.bytes, bytes);
    }

    @Override
    public int hashCode() {
      return 31 * partition + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return partition + ":" + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 24))
          + (bytes.length > 24 ? "..(" + bytes.length + " B)" : "");
    }
  }

  @Provide
  Arbitrary<PrefetchTuning> tunings() {
    return Combinators.combine(Arbitraries.integers().between(1, 64), Arbitraries.integers().between(1, 16))
        .as(PrefetchTuning::new);
  }

  @Provide
  Arbitrary<Integer> sizes() {
    return Arbitraries.oneOf(Arbitraries.of(0, 1, 2, 3), Arbitraries.integers().between(0, 40),
        Arbitraries.integers().between(0, 3000));
  }

  @Provide
  Arbitrary<Integer> partitionCounts() {
    return Arbitraries.oneOf(Arbitraries.of(1, 2, 1000), Arbitraries.integers().between(1, 64),
        Arbitraries.integers().between(1, 1000));
  }

  @Property(tries = 300)
  void everyFormWritesTheReferencePagesInOrder(@ForAll PrefetchingHashJoin.Mode mode,
      @ForAll("tunings") PrefetchTuning tuning, @ForAll @IntRange(min = 4, max = 160) int recordBytes,
      @ForAll("partitionCounts") int partitions, @ForAll @IntRange(min = 1, max = 40) int pageRecords,
      @ForAll @IntRange(min = 0, max = 200) int slack, @ForAll("sizes") int n, @ForAll Skew skew,
      @ForAll boolean remix, @ForAll @IntRange(min = 1, max = 4) int batches, @ForAll long seed,
      EngineMemory memory) {
    Random random = new Random(seed);
    int routingBytes = remix && recordBytes >= Long.BYTES ? Long.BYTES : Integer.BYTES;
    int offset = random.nextInt(recordBytes - routingBytes + 1);
    PrefetchingPartitioner.Routing routing = routingBytes == Long.BYTES
        ? PrefetchingPartitioner.Routing.remixedKey(offset, random.nextLong())
        : PrefetchingPartitioner.Routing.code(offset);
    int pageBytes = pageRecords * recordBytes + Math.min(slack, recordBytes - 1);
    try (OffHeapBuffer input = memory.allocate(Math.max(1, (long) n * recordBytes))) {
      MemorySegment in = input.segment();
      fill(in, n, recordBytes, routing, partitions, skew, random);

      List<Flush> expected = reference(in, n, recordBytes, routing, partitions, pageBytes / recordBytes);
      List<Flush> actual = new ArrayList<>();
      long[] counts;
      try (PrefetchingPartitioner partitioner = new PrefetchingPartitioner(memory, partitions, pageBytes,
          recordBytes, routing, mode, tuning, (p, page) -> actual.add(new Flush(p, page.toArray(ValueLayout.JAVA_BYTE))))) {
        int from = 0;
        for (int b = 0; b < batches; b++) {
          int to = b == batches - 1 ? n : from + random.nextInt(n - from + 1);
          partitioner.partition(in.asSlice((long) from * recordBytes, (long) (to - from) * recordBytes), to - from);
          from = to;
        }
        partitioner.finish();
        counts = partitioner.counts();
      }
      String label = mode + " " + tuning + ", " + recordBytes + " B records, " + partitions + " partitions, pages of "
          + pageBytes + " B, " + n + " records " + skew + ", " + routing;
      assertEquals(expected, actual, label);
      long[] expectedCounts = new long[partitions];
      for (Flush f : expected) {
        expectedCounts[f.partition()] += f.bytes().length / recordBytes;
      }
      assertArrayEquals(expectedCounts, counts, label);
    }
  }

  /** Random records; the routing's code set so that the partitions follow {@code skew}. */
  private static void fill(MemorySegment in, int n, int recordBytes, PrefetchingPartitioner.Routing routing,
      int partitions, Skew skew, Random random) {
    int[] few = {random.nextInt(), random.nextInt(), random.nextInt()};
    long one = random.nextLong();
    for (int i = 0; i < n; i++) {
      long o = (long) i * recordBytes;
      for (int b = 0; b < recordBytes; b++) {
        in.set(ValueLayout.JAVA_BYTE, o + b, (byte) random.nextInt());
      }
      if (routing.remix()) {
        long key = switch (skew) {
          case UNIFORM -> random.nextLong();
          case FEW_CODES -> few[random.nextInt(few.length)];
          case ONE_PARTITION -> one;
        };
        in.set(LONG, o + routing.offset(), key);
      } else {
        int code = switch (skew) {
          case UNIFORM -> random.nextInt();
          case FEW_CODES -> few[random.nextInt(few.length)];
          // codes that differ but all land in one partition
          case ONE_PARTITION -> (int) (one % partitions) + partitions * random.nextInt(1 << 20);
        };
        in.set(INT, o + routing.offset(), code);
      }
    }
  }

  /** The trivial partition loop: per record, in order, append it to its partition; full pages go out. */
  private static List<Flush> reference(MemorySegment in, int n, int recordBytes,
      PrefetchingPartitioner.Routing routing, int partitions, int pageRecords) {
    List<List<byte[]>> open = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      open.add(new ArrayList<>());
    }
    List<Flush> flushes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long o = (long) i * recordBytes;
      int code = routing.remix()
          ? (int) (Hashing.mix64(in.get(LONG, o + routing.offset()) ^ routing.seed()) >>> 32)
          : in.get(INT, o + routing.offset());
      int p = (int) (Integer.toUnsignedLong(code) % partitions);
      open.get(p).add(in.asSlice(o, recordBytes).toArray(ValueLayout.JAVA_BYTE));
      if (open.get(p).size() == pageRecords) {
        flushes.add(page(p, open.get(p)));
      }
    }
    for (int p = 0; p < partitions; p++) {
      if (!open.get(p).isEmpty()) {
        flushes.add(page(p, open.get(p)));
      }
    }
    return flushes;
  }

  private static Flush page(int p, List<byte[]> records) {
    int bytes = records.stream().mapToInt(r -> r.length).sum();
    byte[] page = new byte[bytes];
    int at = 0;
    for (byte[] r : records) {
      System.arraycopy(r, 0, page, at, r.length);
      at += r.length;
    }
    records.clear();
    return new Flush(p, page);
  }
}
