package dev.memwall.core.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** The parallel writers must produce exactly the sequential radix-cluster's clusters (up to order within one). */
@AddLifecycleHook(PropertyLeakCheck.class)
class ParallelRadixClusterProperties {

  @Property(tries = 120)
  void parallelClusteringMatchesSequential(@ForAll @IntRange(min = 0, max = 4000) int count,
      @ForAll @IntRange(min = 0, max = 10) int bits, @ForAll @IntRange(min = 1, max = 3) int passes,
      @ForAll @IntRange(min = 1, max = 4) int threads, @ForAll PartitionWriter writer, @ForAll boolean writeCombining,
      @ForAll @IntRange(min = 1, max = 300) int distinct, @ForAll long seed, EngineMemory memory) {
    RadixPlan plan = bits == 0 ? RadixPlan.even(0, 0) : RadixPlan.even(bits, Math.min(passes, bits));
    Random random = new Random(seed);
    try (HashedTuples a = HashedTuples.allocate(memory, count, Placement.DEFAULT);
        HashedTuples b = HashedTuples.allocate(memory, count, Placement.DEFAULT);
        HashedTuples c = HashedTuples.allocate(memory, count, Placement.DEFAULT);
        HashedTuples d = HashedTuples.allocate(memory, count, Placement.DEFAULT);
        OffHeapBuffer seqOffsets = memory.allocate(RadixCluster.offsetsBytes(plan));
        OffHeapBuffer level = memory.allocate(RadixCluster.offsetsBytes(plan));
        OffHeapBuffer parOffsets = memory.allocate(RadixCluster.offsetsBytes(plan))) {
      for (int i = 0; i < count; i++) {
        long h = random.nextInt(distinct) * 0xD6E8FEB86659FD93L;
        a.set(i, h, i);
        c.set(i, h, i);
      }
      if (writer == PartitionWriter.INDEPENDENT) {
        checkIndependent(c, d, count, threads, random.nextInt(7));
        return;
      }
      HashedTuples expected = RadixCluster.cluster(a, b, count, plan, writeCombining, seqOffsets.segment(), level.segment());
      HashedTuples actual = ParallelRadixCluster.cluster(c, d, count, plan, threads, writer, writeCombining,
          parOffsets.segment());
      for (int k = 0; k <= plan.clusters(); k++) {
        assertEquals(seqOffsets.segment().getAtIndex(ValueLayout.JAVA_INT, k),
            parOffsets.segment().getAtIndex(ValueLayout.JAVA_INT, k), "boundary " + k);
      }
      for (int k = 0; k < plan.clusters(); k++) {
        int from = seqOffsets.segment().getAtIndex(ValueLayout.JAVA_INT, k);
        int to = seqOffsets.segment().getAtIndex(ValueLayout.JAVA_INT, k + 1);
        assertEquals(sortedTuples(expected, from, to), sortedTuples(actual, from, to), "cluster " + k);
      }
    }
  }

  private static void checkIndependent(HashedTuples in, HashedTuples out, int count, int threads, int bits) {
    ParallelRadixCluster.Fragments f = ParallelRadixCluster.partitionIndependent(in, out, count, bits, threads);
    List<Long> all = new ArrayList<>();
    long mask = (1L << bits) - 1;
    for (int t = 0; t < threads; t++) {
      for (int p = 0; p < f.partitions(); p++) {
        for (int i = f.start(t, p); i < f.start(t, p + 1); i++) {
          assertEquals(p, out.hash(i) & mask);
          all.add(out.hash(i) * 31 + out.row(i));
        }
      }
    }
    assertEquals(sortedTuples(in, 0, count), all.stream().sorted().toList());
  }

  private static List<Long> sortedTuples(HashedTuples t, int from, int to) {
    List<Long> list = new ArrayList<>();
    for (int i = from; i < to; i++) {
      list.add(t.hash(i) * 31 + t.row(i));
    }
    list.sort(null);
    return list;
  }

  @Example
  void independentIsRefusedForOrderedClustering() {
    try (EngineMemory memory = EngineMemory.create("independent-refused");
        HashedTuples a = HashedTuples.allocate(memory, 4, Placement.DEFAULT); HashedTuples b = HashedTuples.allocate(memory, 4, Placement.DEFAULT);
        OffHeapBuffer o = memory.allocate(64)) {
      assertThrows(IllegalArgumentException.class, () -> ParallelRadixCluster.cluster(a, b, 4, RadixPlan.even(2, 1), 2,
          PartitionWriter.INDEPENDENT, true, o.segment()));
    }
  }
}
