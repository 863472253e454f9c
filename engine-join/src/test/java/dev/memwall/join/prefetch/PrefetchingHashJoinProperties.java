package dev.memwall.join.prefetch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.join.prefetch.BucketTable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Every form of build and probe (plain, group, pipelined; any G and D) against a nested-loop
 * reference, with few distinct codes (crowded buckets, busy-bucket deferral, many matches per probe)
 * and keys that share a code but differ (hash-code collisions), for all and first-match-only probes,
 * over 16-byte and wider build and probe tuples.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class PrefetchingHashJoinProperties {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

  @Provide
  Arbitrary<PrefetchTuning> tunings() {
    return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(1, 40), Arbitraries.integers().between(1, 9))
        .as(PrefetchTuning::new);
  }

  /** The spill pages' 16 bytes, and wider tuples as in the thesis's experiments (20-140 B, rounded to 8). */
  @Provide
  Arbitrary<Integer> tupleBytes() {
    return Arbitraries.of(16, 24, 56, 104, 136);
  }

  @Property(tries = 150)
  void everyFormFindsExactlyTheEqualKeys(@ForAll PrefetchingHashJoin.Mode buildMode,
      @ForAll PrefetchingHashJoin.Mode probeMode, @ForAll("tunings") PrefetchTuning tuning,
      @ForAll @IntRange(min = 0, max = 400) int buildSize, @ForAll @IntRange(min = 0, max = 400) int probeSize,
      @ForAll @IntRange(min = 1, max = 300) int codes, @ForAll @IntRange(min = 1, max = 7) int partitions,
      @ForAll boolean firstSuffices, @ForAll("tupleBytes") int buildBytes, @ForAll("tupleBytes") int probeBytes,
      @ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    long[] buildKeys = new long[buildSize];
    for (int i = 0; i < buildSize; i++) {
      buildKeys[i] = key(random, codes);
    }
    try (BucketTable table = new BucketTable(memory, buildBytes);
        OffHeapBuffer probeBuffer = memory.allocate(Math.max(16, (long) probeSize * probeBytes))) {
      MemorySegment space = table.tupleSpace(buildSize);
      for (int i = 0; i < buildSize; i++) {
        write(space, i * (long) buildBytes, buildKeys[i], 1000 + i);
      }
      new PrefetchingHashJoin(buildMode, tuning).build(table, buildSize, partitions);
      MemorySegment probe = probeBuffer.segment();
      long[] probeKeys = new long[probeSize];
      for (int i = 0; i < probeSize; i++) {
        probeKeys[i] = key(random, codes);
        write(probe, i * (long) probeBytes, probeKeys[i], i);
      }
      List<String> expected = new ArrayList<>();
      for (int p = 0; p < probeSize; p++) {
        boolean matched = false;
        for (int b = 0; b < buildSize && !(matched && firstSuffices); b++) {
          if (buildKeys[b] == probeKeys[p]) {
            matched = true;
            if (!firstSuffices) {
              expected.add(p + "-" + (1000 + b));
            }
          }
        }
        expected.add(p + (matched ? " matched" : " unmatched"));
      }
      List<String> actual = new ArrayList<>();
      int[] finished = {0};
      new PrefetchingHashJoin(probeMode, tuning).probe(table, probe, probeBytes, probeSize, firstSuffices,
          new PrefetchingHashJoin.ProbeSink() {
            @Override
            public boolean match(int probeRow, int buildRow) {
              if (!firstSuffices) {
                actual.add(probeRow + "-" + buildRow);
              }
              return true;
            }

            @Override
            public void finish(int probeRow, boolean matched) {
              assertEquals(finished[0]++, probeRow, "probe tuples finish in order");
              actual.add(probeRow + (matched ? " matched" : " unmatched"));
            }
          });
      Collections.sort(expected);
      Collections.sort(actual);
      assertEquals(expected, actual, buildMode + " build, " + probeMode + " probe, " + tuning);
      assertTrue(table.size() == buildSize);
    }
  }

  @Example
  void tupleWidthsThatAreNotWholeLongsAreRefused(EngineMemory memory) {
    assertThrows(IllegalArgumentException.class, () -> new BucketTable(memory, 20));
    assertThrows(IllegalArgumentException.class, () -> new BucketTable(memory, 8));
    try (BucketTable table = new BucketTable(memory)) {
      table.tupleSpace(0);
      table.build(0, 1);
      PrefetchingHashJoin loops = new PrefetchingHashJoin(PrefetchingHashJoin.Mode.GROUP, new PrefetchTuning(4, 2));
      assertThrows(IllegalArgumentException.class,
          () -> loops.probe(table, MemorySegment.NULL, 12, 0, false, null));
    }
  }

  /** Keys from a small set; codes collide on purpose: keys 2c and 2c+1 share code c. */
  private static long key(Random random, int codes) {
    long v = random.nextInt(codes);
    int code = (int) (v / 2);
    return ((long) code << 32) | (v & 1) | ((v % 5) << 8);
  }

  /** The 16-byte head of a tuple at byte {@code at}; wider tuples' payload is left zero. */
  private static void write(MemorySegment s, long at, long key, int row) {
    s.set(INT, at, (int) (key >>> 32));
    s.set(INT, at + 4, row);
    s.set(LONG, at + 8, key);
  }
}
