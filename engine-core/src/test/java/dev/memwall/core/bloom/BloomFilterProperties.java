package dev.memwall.core.bloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** No false negatives ever; false-positive rates near the sizing formulas; vertical equals horizontal. */
@AddLifecycleHook(PropertyLeakCheck.class)
class BloomFilterProperties {

  @Provide
  Arbitrary<List<Long>> hashes() {
    Arbitrary<Long> limits = Arbitraries.of(0L, -1L, 1L, Long.MIN_VALUE, Long.MAX_VALUE, 0xFFFF_FFFFL, 1L << 32);
    Arbitrary<Long> hash = Arbitraries.frequencyOf(Tuple.of(1, limits), Tuple.of(5, Arbitraries.longs()));
    return hash.list().ofMinSize(1).ofMaxSize(3000);
  }

  @Property(tries = 60)
  void addedKeysAreAlwaysFound(@ForAll("hashes") List<Long> added, @ForAll @IntRange(min = 1, max = 8) int hashes,
      EngineMemory memory) {
    try (BlockedBloomFilter blocked = BlockedBloomFilter.create(memory, added.size(), 0.01);
        BloomFilter classic = BloomFilter.create(memory, 10L * added.size(), hashes);
        RegisterBlockedBloomFilter register = RegisterBlockedBloomFilter.create(memory, added.size(), hashes)) {
      added.forEach(hash -> {
        blocked.add(hash);
        classic.add(hash);
        register.add(hash);
      });
      for (long hash : added) {
        assertTrue(blocked.mightContain(hash), "blocked filter lost " + hash);
        assertTrue(classic.mightContain(hash), "classic filter lost " + hash);
        assertTrue(register.mightContain(hash), "register-blocked filter lost " + hash);
      }
      long[] probe = added.stream().mapToLong(Long::longValue).toArray();
      int[] selection = new int[probe.length];
      assertEquals(probe.length, blocked.select(probe, probe.length, selection));
      for (int i = 0; i < probe.length; i++) {
        assertEquals(i, selection[i]);
      }
      assertEquals(probe.length, register.select(probe, probe.length, selection));
      for (int i = 0; i < probe.length; i++) {
        assertEquals(i, selection[i]);
      }
    }
  }

  @Property(tries = 40)
  void verticalCandidatesAreExactlyTheFiltersThatMayHoldTheKey(
      @ForAll @Size(min = 1, max = 64) List<@Size(max = 200) List<Long>> perFilter, @ForAll long probeSeed,
      EngineMemory memory) {
    List<BloomFilter> filters = new ArrayList<>();
    try {
      for (List<Long> keys : perFilter) {
        BloomFilter filter = BloomFilter.create(memory, 2048, 3);
        keys.forEach(filter::add);
        filters.add(filter);
      }
      try (VerticalBloomFilters vertical = VerticalBloomFilters.transpose(memory, filters)) {
        SplittableRandom random = new SplittableRandom(probeSeed);
        List<Long> probes = new ArrayList<>();
        perFilter.forEach(probes::addAll);
        for (int i = 0; i < 200; i++) {
          probes.add(random.nextLong());
        }
        for (long hash : probes) {
          long expected = 0;
          for (int s = 0; s < filters.size(); s++) {
            expected |= filters.get(s).mightContain(hash) ? 1L << s : 0;
          }
          assertEquals(expected, vertical.candidates(hash), "hash " + hash);
        }
      }
    } finally {
      filters.forEach(BloomFilter::close);
    }
  }

  /**
   * Filters wrapped over slices of one buffer and transposed into another caller-owned buffer give
   * the same candidates as separately allocated ones, and closing them frees nothing of the caller's.
   */
  @Property(tries = 30)
  void wrappedFiltersInSharedBuffersAgreeWithOwnedOnes(
      @ForAll @Size(min = 1, max = 64) List<@Size(max = 100) List<Long>> perFilter, @ForAll long probeSeed,
      EngineMemory memory) {
    long bytes = BloomFilter.bytesFor(1000);
    List<BloomFilter> owned = new ArrayList<>();
    List<BloomFilter> wrapped = new ArrayList<>();
    try (OffHeapBuffer horizontal = memory.allocate(bytes * perFilter.size());
        OffHeapBuffer vertical = memory.allocate(VerticalBloomFilters.bytesFor(bytes * 8))) {
      horizontal.segment().fill((byte) 0);
      vertical.segment().fill((byte) 0);
      for (int s = 0; s < perFilter.size(); s++) {
        BloomFilter own = BloomFilter.create(memory, 1000, 3);
        owned.add(own);
        BloomFilter wrap = BloomFilter.wrap(horizontal.segment().asSlice(s * bytes, bytes), 3);
        wrapped.add(wrap);
        for (long key : perFilter.get(s)) {
          own.add(key);
          wrap.add(key);
        }
      }
      try (VerticalBloomFilters reference = VerticalBloomFilters.transpose(memory, owned);
          VerticalBloomFilters shared = VerticalBloomFilters.transpose(wrapped, vertical.segment())) {
        SplittableRandom random = new SplittableRandom(probeSeed);
        List<Long> probes = new ArrayList<>();
        perFilter.forEach(probes::addAll);
        for (int i = 0; i < 100; i++) {
          probes.add(random.nextLong());
        }
        for (long hash : probes) {
          assertEquals(reference.candidates(hash), shared.candidates(hash), "hash " + hash);
        }
      }
      wrapped.forEach(BloomFilter::close);
      assertFalse(horizontal.isClosed(), "closing a wrapped filter must leave the caller's buffer");
    } finally {
      owned.forEach(BloomFilter::close);
    }
  }

  @Example
  void falsePositiveRatesFollowTheSizing(EngineMemory memory) {
    int keys = 20_000;
    SplittableRandom random = new SplittableRandom(42);
    Set<Long> added = new HashSet<>();
    while (added.size() < keys) {
      added.add(random.nextLong());
    }
    double bitsPerKey = BloomFilter.bitsPerKey(0.01, 3);
    try (BlockedBloomFilter blocked = BlockedBloomFilter.create(memory, keys, 0.01);
        BloomFilter classic = BloomFilter.create(memory, (long) Math.ceil(bitsPerKey * keys), 3)) {
      added.forEach(hash -> {
        blocked.add(hash);
        classic.add(hash);
      });
      int trials = 200_000;
      int blockedHits = 0;
      int classicHits = 0;
      for (int i = 0; i < trials; i++) {
        long hash = random.nextLong();
        if (!added.contains(hash)) {
          blockedHits += blocked.mightContain(hash) ? 1 : 0;
          classicHits += classic.mightContain(hash) ? 1 : 0;
        }
      }
      double blockedRate = (double) blockedHits / trials;
      double classicRate = (double) classicHits / trials;
      assertTrue(blockedRate > 0.002 && blockedRate < 0.02, "split-block rate " + blockedRate + " for a 1% sizing");
      assertTrue(classicRate > 0.005 && classicRate < 0.015, "classic rate " + classicRate + " for a 1% sizing");
    }
  }

  /** The register-blocked filter's select keeps exactly the positions mightContain accepts, in order. */
  @Property(tries = 30)
  void registerBlockedSelectionIsMightContain(@ForAll("hashes") List<Long> added, @ForAll("hashes") List<Long> probed,
      @ForAll @IntRange(min = 1, max = 20) int bitsPerKey, EngineMemory memory) {
    try (RegisterBlockedBloomFilter filter = RegisterBlockedBloomFilter.create(memory, added.size(), bitsPerKey)) {
      added.forEach(filter::add);
      long[] probe = probed.stream().mapToLong(Long::longValue).toArray();
      int[] selection = new int[probe.length];
      int selected = filter.select(probe, probe.length, selection);
      List<Integer> expected = new ArrayList<>();
      for (int i = 0; i < probe.length; i++) {
        if (filter.mightContain(probe[i])) {
          expected.add(i);
        }
      }
      assertEquals(expected, java.util.Arrays.stream(selection, 0, selected).boxed().toList());
    }
  }

  @Example
  void registerBlockedRatesFollowTheBitsPerKey(EngineMemory memory) {
    int keys = 20_000;
    SplittableRandom random = new SplittableRandom(7);
    Set<Long> added = new HashSet<>();
    while (added.size() < keys) {
      added.add(random.nextLong());
    }
    for (int bitsPerKey : new int[] {8, 16}) {
      try (RegisterBlockedBloomFilter filter = RegisterBlockedBloomFilter.create(memory, keys, bitsPerKey)) {
        added.forEach(filter::add);
        double bits = filter.byteSize() * 8.0 / keys;
        assertTrue(bits >= bitsPerKey && bits < 2 * bitsPerKey, bits + " bits per key for " + bitsPerKey);
        int trials = 200_000;
        int hits = 0;
        for (int i = 0; i < trials; i++) {
          long hash = random.nextLong();
          hits += !added.contains(hash) && filter.mightContain(hash) ? 1 : 0;
        }
        double rate = (double) hits / trials;
        // 3 bits in one word: about 5% at 8 bits a key, 1-2% at 16 (the power-of-two sizing gives up to twice the bits)
        double ceiling = bitsPerKey == 8 ? 0.08 : 0.025;
        assertTrue(rate > 0.0005 && rate < ceiling, "register-blocked rate " + rate + " at " + bits + " bits per key");
      }
    }
  }

  @Example
  void sizingMatchesTheThesis() {
    // Inspector join: fpr 0.05 over S = 50 filters with 3 hash functions needs about 28.5 bits per key.
    assertEquals(28.5, BloomFilter.bitsPerKey(0.05 / 50, 3), 0.5);
    // A split-block filter at 1% needs about 9.7 bits per key: 1,000 keys take 38 blocks of 32 bytes.
    assertEquals(38 * 32, BlockedBloomFilter.bytesFor(1000, 0.01));
  }

  @Example
  void emptyFiltersContainNothing(EngineMemory memory) {
    try (BlockedBloomFilter blocked = BlockedBloomFilter.create(memory, 1, 0.5);
        BloomFilter classic = BloomFilter.create(memory, 1, 1);
        RegisterBlockedBloomFilter register = RegisterBlockedBloomFilter.create(memory, 1, 1)) {
      for (long hash : new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 12345}) {
        assertFalse(blocked.mightContain(hash));
        assertFalse(classic.mightContain(hash));
        assertFalse(register.mightContain(hash));
      }
      assertEquals(64, classic.bits());
    }
  }

  @Example
  void badInputIsRefused(EngineMemory memory) {
    assertThrows(IllegalArgumentException.class, () -> BlockedBloomFilter.bytesFor(0, 0.01));
    assertThrows(IllegalArgumentException.class, () -> BlockedBloomFilter.bytesFor(10, 1.0));
    assertThrows(IllegalArgumentException.class, () -> BlockedBloomFilter.bytesFor(10, Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.bitsPerKey(0, 3));
    assertThrows(IllegalArgumentException.class, () -> RegisterBlockedBloomFilter.bytesFor(0, 16));
    assertThrows(IllegalArgumentException.class, () -> RegisterBlockedBloomFilter.bytesFor(10, 0));
    assertThrows(IllegalArgumentException.class, () -> RegisterBlockedBloomFilter.bytesFor(Long.MAX_VALUE / 2, 16));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(memory, 0, 3));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(memory, 64, 0));
    assertThrows(IllegalArgumentException.class, () -> VerticalBloomFilters.transpose(memory, List.of()));
    try (BloomFilter a = BloomFilter.create(memory, 128, 3); BloomFilter b = BloomFilter.create(memory, 256, 3)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> VerticalBloomFilters.transpose(memory, List.of(a, b)));
      assertTrue(e.getMessage().contains("share their size"), e.getMessage());
    }
  }
}
