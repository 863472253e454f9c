package dev.memwall.index.pbtree;

import static dev.memwall.index.TreeModel.fit;
import static dev.memwall.index.TreeModel.toList;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.Placement;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.TreeModel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.AfterFailureMode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Model-based properties of {@link PrefetchingBPlusTree}: every operation sequence gives the same
 * answers as {@link TreeModel} (a {@code TreeMap} of row-id lists), with the tree's invariants
 * checked after each operation, over random configurations (key type, width, fetch, jump
 * pointers, d, c, batch group, optimistic readers on or off).
 */
@AddLifecycleHook(PropertyLeakCheck.class)
public class PbTreeProperties {

  enum Kind { INSERT, DELETE_PRESENT, DELETE_ANY, SEARCH, SCAN, BATCH }

  record Op(Kind kind, long a, long b, int selector) {}

  @Provide
  Arbitrary<PbTreeConfig> configs() {
    return Combinators.combine(Arbitraries.of(KeyType.values()), Arbitraries.of(1, 2, 3, 4, 8),
        Arbitraries.of(true, false), Arbitraries.of(JumpPointers.values()), Arbitraries.integers().between(1, 4),
        Arbitraries.integers().between(1, 2), Arbitraries.integers().between(1, 8), Arbitraries.of(0L, 100L))
        .as((kt, w, fetch, jp, d, c, group, min) -> new PbTreeConfig(kt, w, fetch, jp, d, c, min, group,
            Placement.DEFAULT))
        .flatMap(config -> Arbitraries.of(false, true).map(config::withOptimisticReaders));
  }

  /** Keys with many duplicates, the type limits and arbitrary values. */
  public static Arbitrary<Long> keysForTests() {
    return keys();
  }

  static Arbitrary<Long> keys() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.longs().between(-20, 20)),
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1,
            (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE, Integer.MIN_VALUE + 1L, Integer.MAX_VALUE - 1L)),
        Tuple.of(2, Arbitraries.longs()));
  }

  @Provide
  Arbitrary<List<Op>> operations() {
    Arbitrary<Long> rows = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.longs().between(0, 1_000_000)),
        Tuple.of(1, Arbitraries.longs().between(0, 3)), Tuple.of(1, Arbitraries.longs()));
    Arbitrary<Op> insert = Combinators.combine(keys(), rows).as((k, r) -> new Op(Kind.INSERT, k, r, 0));
    Arbitrary<Op> deletePresent = Arbitraries.integers().between(0, Integer.MAX_VALUE)
        .map(i -> new Op(Kind.DELETE_PRESENT, 0, 0, i));
    Arbitrary<Op> deleteAny = Combinators.combine(keys(), rows).as((k, r) -> new Op(Kind.DELETE_ANY, k, r, 0));
    Arbitrary<Op> search = keys().map(k -> new Op(Kind.SEARCH, k, 0, 0));
    Arbitrary<Op> scan = Combinators.combine(keys(), keys(), Arbitraries.integers().between(0, 1000))
        .as((lo, hi, s) -> new Op(Kind.SCAN, lo, hi, s));
    Arbitrary<Op> batch = Arbitraries.integers().between(0, 1000).map(s -> new Op(Kind.BATCH, 0, 0, s));
    return Arbitraries.frequencyOf(Tuple.of(12, insert), Tuple.of(4, deletePresent), Tuple.of(1, deleteAny),
        Tuple.of(2, search), Tuple.of(2, scan), Tuple.of(1, batch)).list().ofMaxSize(250);
  }

  @Property(tries = 150, afterFailure = AfterFailureMode.RANDOM_SEED)
  void randomOperationsMatchTreeMap(@ForAll("configs") PbTreeConfig config, @ForAll("operations") List<Op> ops,
      EngineMemory memory) {
    try (PrefetchingBPlusTree tree = PrefetchingBPlusTree.create(memory, config)) {
      TreeModel model = new TreeModel();
      run(tree, model, ops);
      assertMatches(tree, model);
    }
  }

  @Property(tries = 100, afterFailure = AfterFailureMode.RANDOM_SEED)
  void bulkloadThenOperationsMatchTreeMap(@ForAll("configs") PbTreeConfig config,
      @ForAll @Size(max = 600) List<@net.jqwik.api.From("keysForBulkload") Long> keys,
      @ForAll @DoubleRange(min = 0.05, max = 1.0) double fill, @ForAll("operations") List<Op> ops,
      EngineMemory memory) {
    KeyType type = config.keyType();
    List<Long> sorted = new ArrayList<>();
    for (long k : keys) {
      sorted.add(fit(type, k));
    }
    Collections.sort(sorted);
    long[] k = new long[sorted.size()];
    long[] r = new long[sorted.size()];
    TreeModel model = new TreeModel();
    for (int i = 0; i < k.length; i++) {
      k[i] = sorted.get(i);
      r[i] = 1000L * i + 7;
      model.insert(k[i], r[i]);
    }
    try (PrefetchingBPlusTree tree = PrefetchingBPlusTree.bulkload(memory, config, SortedEntries.of(k, r), fill)) {
      tree.checkInvariants();
      assertMatches(tree, model);
      run(tree, model, ops);
      assertMatches(tree, model);
    }
  }

  @Provide
  Arbitrary<Long> keysForBulkload() {
    return keys();
  }

  @Property(tries = 60, afterFailure = AfterFailureMode.RANDOM_SEED)
  void sortedReverseAndDuplicateInsertsMatchTreeMap(@ForAll("configs") PbTreeConfig config,
      @ForAll @IntRange(min = 0, max = 700) int count, @ForAll @IntRange(min = 0, max = 2) int order,
      @ForAll @IntRange(min = 1, max = 50) int distinct, EngineMemory memory) {
    KeyType type = config.keyType();
    List<Long> keys = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      keys.add(fit(type, type.min() + (long) (i % distinct) * 3)); // from the type's minimum up, duplicated
    }
    switch (order) {
      case 0 -> Collections.sort(keys);
      case 1 -> keys.sort(Comparator.reverseOrder());
      default -> { } // round-robin over the distinct keys: every key duplicated across the sequence
    }
    try (PrefetchingBPlusTree tree = PrefetchingBPlusTree.create(memory, config)) {
      TreeModel model = new TreeModel();
      for (int i = 0; i < keys.size(); i++) {
        tree.insert(keys.get(i), i);
        model.insert(keys.get(i), i);
        if (i % 37 == 0) {
          tree.checkInvariants();
        }
      }
      tree.checkInvariants();
      assertMatches(tree, model);
    }
  }

  @Property(tries = 60, afterFailure = AfterFailureMode.RANDOM_SEED)
  void deletesToEmptyThenReuse(@ForAll("configs") PbTreeConfig config,
      @ForAll @Size(max = 400) List<@net.jqwik.api.From("keysForBulkload") Long> keys, @ForAll long seed,
      @ForAll boolean bulkload, EngineMemory memory) {
    KeyType type = config.keyType();
    List<long[]> entries = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      entries.add(new long[] {fit(type, keys.get(i)), i});
    }
    TreeModel model = new TreeModel();
    PrefetchingBPlusTree tree;
    if (bulkload) {
      entries.sort(Comparator.comparingLong(e -> e[0]));
      long[] k = entries.stream().mapToLong(e -> e[0]).toArray();
      long[] r = entries.stream().mapToLong(e -> e[1]).toArray();
      tree = PrefetchingBPlusTree.bulkload(memory, config, SortedEntries.of(k, r), 1.0);
    } else {
      tree = PrefetchingBPlusTree.create(memory, config);
      for (long[] e : entries) {
        tree.insert(e[0], e[1]);
      }
    }
    try (tree) {
      for (long[] e : entries) {
        model.insert(e[0], e[1]);
      }
      Collections.shuffle(entries, new Random(seed));
      for (long[] e : entries) {
        assertTrue(tree.delete(e[0], e[1]), "delete of a present entry");
        assertTrue(model.delete(e[0], e[1]));
        assertFalse(tree.delete(e[0], -1 - e[1]), "delete of an absent row id");
        tree.checkInvariants();
      }
      assertEquals(0, tree.size());
      assertMatches(tree, model);
      for (long[] e : entries) {
        assertFalse(tree.contains(e[0]));
      }
      for (long[] e : entries) {
        tree.insert(e[0], e[1] + 1);
        model.insert(e[0], e[1] + 1);
      }
      tree.checkInvariants();
      assertMatches(tree, model);
    }
  }

  static void run(PrefetchingBPlusTree tree, TreeModel model, List<Op> ops) {
    KeyType type = tree.config().keyType();
    RowIds out = new RowIds();
    for (Op op : ops) {
      switch (op.kind()) {
        case INSERT -> {
          long key = fit(type, op.a());
          tree.insert(key, op.b());
          model.insert(key, op.b());
        }
        case DELETE_PRESENT -> {
          if (model.size() > 0) {
            long[] entry = model.pick(op.selector());
            assertTrue(tree.delete(entry[0], entry[1]), "delete of a present entry");
            model.delete(entry[0], entry[1]);
          }
        }
        case DELETE_ANY -> {
          long key = fit(type, op.a());
          assertEquals(model.delete(key, op.b()), tree.delete(key, op.b()), "delete of " + key + "/" + op.b());
        }
        case SEARCH -> {
          long key = fit(type, op.a());
          out.clear();
          assertEquals(model.rows(key).size(), tree.search(key, out));
          assertEquals(model.rows(key), toList(out));
          assertEquals(model.rows(key).isEmpty() ? -1 : model.rows(key).get(0), tree.searchFirst(key, -1));
        }
        case SCAN -> checkScan(tree, model, fit(type, op.a()), fit(type, op.b()), op.selector());
        case BATCH -> checkBatch(tree, model, op.selector());
      }
      tree.checkInvariants();
      assertEquals(model.size(), tree.size());
    }
  }

  static void checkScan(PrefetchingBPlusTree tree, TreeModel model, long lo, long hi, int selector) {
    ScanPrefetch mode = ScanPrefetch.values()[selector % 3];
    int batch = 1 + selector % 9;
    PrefetchingBPlusTree.RangeScan scan = tree.scan(lo, hi, mode);
    if (mode == ScanPrefetch.NEVER || tree.config().jumpPointers() == JumpPointers.NONE || tree.height() == 1) {
      assertFalse(scan.prefetching());
    } else if (mode == ScanPrefetch.ALWAYS && lo <= hi) {
      assertTrue(scan.prefetching());
    }
    List<Long> rows = new ArrayList<>();
    List<Long> keys = new ArrayList<>();
    long[] k = new long[batch];
    long[] r = new long[batch];
    for (int got; (got = scan.next(k, r)) > 0; ) {
      assertTrue(got <= batch);
      for (int i = 0; i < got; i++) {
        keys.add(k[i]);
        rows.add(r[i]);
      }
    }
    assertEquals(0, scan.next(r), "an exhausted scan stays exhausted");
    assertEquals(model.rangeKeys(lo, hi), keys, "keys of [" + lo + ", " + hi + "]");
    assertEquals(model.range(lo, hi), rows, "row ids of [" + lo + ", " + hi + "]");
  }

  static void checkBatch(PrefetchingBPlusTree tree, TreeModel model, int selector) {
    KeyType type = tree.config().keyType();
    List<Long> candidates = new ArrayList<>(model.map().keySet());
    candidates.add(fit(type, 12345));
    candidates.add(type.min());
    candidates.add(type.max());
    Random random = new Random(selector);
    int count = random.nextInt(40);
    long[] keys = new long[count + 3];
    for (int i = 0; i < count; i++) {
      keys[i] = candidates.get(random.nextInt(candidates.size()));
    }
    int[] offsets = new int[count + 1];
    RowIds out = new RowIds(1);
    tree.lookupBatch(keys, count, offsets, out);
    assertEquals(0, offsets[0]);
    for (int i = 0; i < count; i++) {
      List<Long> got = new ArrayList<>();
      for (int j = offsets[i]; j < offsets[i + 1]; j++) {
        got.add(out.get(j));
      }
      assertEquals(model.rows(keys[i]), got, "batched lookup of " + keys[i]);
    }
    assertEquals(out.size(), offsets[count]);
  }

  public static void assertMatches(PrefetchingBPlusTree tree, TreeModel model) {
    tree.checkInvariants();
    assertEquals(model.size(), tree.size());
    RowIds out = new RowIds();
    for (Map.Entry<Long, List<Long>> e : model.map().entrySet()) {
      out.clear();
      assertEquals(e.getValue().size(), tree.search(e.getKey(), out));
      assertEquals(e.getValue(), toList(out), "row ids of " + e.getKey());
      assertTrue(tree.contains(e.getKey()));
    }
    KeyType type = tree.config().keyType();
    for (long absent : new long[] {type.min(), type.max(), 0, -1, 1, 99}) {
      if (!model.map().containsKey(absent)) {
        out.clear();
        assertEquals(0, tree.search(absent, out));
        assertFalse(tree.contains(absent));
        assertEquals(-7, tree.searchFirst(absent, -7));
      }
    }
    for (int selector : new int[] {0, 1, 2, 4, 8}) {
      checkScan(tree, model, type.min(), type.max(), selector);
    }
    checkBatch(tree, model, 17);
  }
}
