package dev.memwall.index.disk;

import static dev.memwall.index.TreeModel.fit;
import static dev.memwall.index.TreeModel.toList;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.TreeModel;
import dev.memwall.index.disktrees.DiskIndexes;
import dev.memwall.index.pbtree.PbTreeProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Model-based properties of {@link DiskIndex} of all four tree types (the three {@link DiskBPlusTree} formats and the
 * cache-first {@link dev.memwall.index.fpb.CacheFirstTree}): every operation
 * sequence (inserts, deletes, searches, scans, syncs, reopens) answers as {@link TreeModel} does,
 * with the tree's invariants checked after each operation. Narrow in-page nodes and 4 KiB pages
 * make small inputs split pages and grow the tree.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
public class DiskTreeProperties {

  enum Kind { INSERT, DELETE_PRESENT, DELETE_ANY, SEARCH, SCAN, SYNC, REOPEN }

  record Op(Kind kind, long a, long b, int selector) {}

  @Provide
  Arbitrary<DiskTreeConfig> configs() {
    return Combinators.combine(Arbitraries.of(KeyType.values()), Arbitraries.of(DiskTreeType.values()),
        Arbitraries.of(4096, 4096, 8192), Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1, 4),
        Arbitraries.integers().between(1, 4), Arbitraries.of(12, 16, 64), Arbitraries.integers().between(0, 3))
        .as((kt, treeType, page, w, x, sub, frames, prefetch) -> new DiskTreeConfig(kt, treeType, page, w, x, sub,
            frames, 100_000, prefetch));
  }

  @Provide
  Arbitrary<List<Op>> operations() {
    Arbitrary<Long> keys = PbTreeProperties.keysForTests();
    Arbitrary<Long> rows = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.longs().between(0, 1_000_000)),
        Tuple.of(1, Arbitraries.longs().between(0, 3)), Tuple.of(1, Arbitraries.longs()));
    Arbitrary<Op> insert = Combinators.combine(keys, rows).as((k, r) -> new Op(Kind.INSERT, k, r, 0));
    Arbitrary<Op> deletePresent = Arbitraries.integers().between(0, Integer.MAX_VALUE)
        .map(i -> new Op(Kind.DELETE_PRESENT, 0, 0, i));
    Arbitrary<Op> deleteAny = Combinators.combine(keys, rows).as((k, r) -> new Op(Kind.DELETE_ANY, k, r, 0));
    Arbitrary<Op> search = keys.map(k -> new Op(Kind.SEARCH, k, 0, 0));
    Arbitrary<Op> scan = Combinators.combine(keys, keys, Arbitraries.integers().between(0, 1000))
        .as((lo, hi, s) -> new Op(Kind.SCAN, lo, hi, s));
    return Arbitraries.frequencyOf(Tuple.of(30, insert), Tuple.of(8, deletePresent), Tuple.of(2, deleteAny),
        Tuple.of(3, search), Tuple.of(3, scan), Tuple.of(1, Arbitraries.just(new Op(Kind.SYNC, 0, 0, 0))),
        Tuple.of(1, Arbitraries.just(new Op(Kind.REOPEN, 0, 0, 0)))).list().ofMaxSize(600);
  }

  @Provide
  Arbitrary<Long> bulkKeys() {
    return PbTreeProperties.keysForTests();
  }

  static Path tempFile() {
    try {
      Path dir = Files.createTempDirectory("disktree");
      return dir.resolve("tree.pages");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void deleteFile(Path file) {
    try {
      Files.deleteIfExists(file);
      Files.deleteIfExists(file.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Holds the tree so a REOPEN can replace it. */
  static final class Handle {
    DiskIndex tree;
  }

  @Property(tries = 120, afterFailure = AfterFailureMode.RANDOM_SEED)
  void randomOperationsMatchTreeMap(@ForAll("configs") DiskTreeConfig config, @ForAll("operations") List<Op> ops,
      EngineMemory memory) {
    Path file = tempFile();
    Handle handle = new Handle();
    try {
      handle.tree = DiskIndexes.create(file, config, memory);
      TreeModel model = new TreeModel();
      run(handle, file, config, memory, model, ops);
      assertMatches(handle.tree, model);
      handle.tree.close();
      handle.tree = DiskIndexes.open(file, config, memory);
      assertMatches(handle.tree, model);
    } finally {
      if (handle.tree != null) {
        handle.tree.close();
      }
      deleteFile(file);
    }
  }

  @Property(tries = 60, afterFailure = AfterFailureMode.RANDOM_SEED)
  void bulkloadThenOperationsMatchTreeMap(@ForAll("configs") DiskTreeConfig config,
      @ForAll @Size(max = 1500) List<@From("bulkKeys") Long> keys, @ForAll @DoubleRange(min = 0.05, max = 1.0) double fill,
      @ForAll("operations") List<Op> ops, EngineMemory memory) {
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
    Path file = tempFile();
    Handle handle = new Handle();
    try {
      handle.tree = DiskIndexes.bulkload(file, config, memory, SortedEntries.of(k, r), fill);
      assertMatches(handle.tree, model);
      run(handle, file, config, memory, model, ops);
      assertMatches(handle.tree, model);
    } finally {
      if (handle.tree != null) {
        handle.tree.close();
      }
      deleteFile(file);
    }
  }

  @Property(tries = 40, afterFailure = AfterFailureMode.RANDOM_SEED)
  void sortedReverseAndDuplicateInsertsThenDeletesToEmpty(@ForAll("configs") DiskTreeConfig config,
      @ForAll @IntRange(min = 0, max = 2500) int count, @ForAll @IntRange(min = 0, max = 2) int order,
      @ForAll @IntRange(min = 1, max = 60) int distinct, @ForAll long seed, EngineMemory memory) {
    KeyType type = config.keyType();
    List<long[]> entries = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long key = order == 2 ? type.max() - (i % distinct) : type.min() + (long) (i % distinct) * 3;
      entries.add(new long[] {key, i});
    }
    switch (order) {
      case 0 -> entries.sort(Comparator.comparingLong(e -> e[0]));
      case 1 -> entries.sort(Comparator.comparingLong((long[] e) -> e[0]).reversed());
      default -> { } // round-robin: every key duplicated across the sequence, near the type's maximum
    }
    Path file = tempFile();
    try (DiskIndex tree = DiskIndexes.create(file, config, memory)) {
      TreeModel model = new TreeModel();
      for (int i = 0; i < entries.size(); i++) {
        tree.insert(entries.get(i)[0], entries.get(i)[1]);
        model.insert(entries.get(i)[0], entries.get(i)[1]);
        if (i % 97 == 0) {
          tree.checkInvariants();
        }
      }
      assertMatches(tree, model);
      Collections.shuffle(entries, new Random(seed));
      for (int i = 0; i < entries.size(); i++) {
        long[] e = entries.get(i);
        assertTrue(tree.delete(e[0], e[1]), "delete of a present entry");
        assertTrue(model.delete(e[0], e[1]));
        assertFalse(tree.delete(e[0], -1 - e[1]), "delete of an absent row id");
        if (i % 97 == 0) {
          tree.checkInvariants();
        }
        if (i % 500 == 0) {
          tree.sync();
        }
      }
      assertEquals(0, tree.size());
      assertMatches(tree, model);
      for (long[] e : entries) {
        tree.insert(e[0], e[1] + 1);
        model.insert(e[0], e[1] + 1);
      }
      assertMatches(tree, model);
    } finally {
      deleteFile(file);
    }
  }

  static void run(Handle handle, Path file, DiskTreeConfig config, EngineMemory memory, TreeModel model,
      List<Op> ops) {
    KeyType type = config.keyType();
    RowIds out = new RowIds();
    for (Op op : ops) {
      DiskIndex tree = handle.tree;
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
        case SYNC -> tree.sync();
        case REOPEN -> {
          tree.close();
          handle.tree = null;
          handle.tree = DiskIndexes.open(file, config, memory);
        }
      }
      handle.tree.checkInvariants();
      assertEquals(model.size(), handle.tree.size());
    }
  }

  public static void checkScan(DiskIndex tree, TreeModel model, long lo, long hi, int selector) {
    int batch = 1 + selector % 13;
    DiskIndex.Scan scan = tree.scan(lo, hi);
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

  public static void assertMatches(DiskIndex tree, TreeModel model) {
    tree.checkInvariants();
    assertEquals(model.size(), tree.size());
    RowIds out = new RowIds();
    for (Map.Entry<Long, List<Long>> e : model.map().entrySet()) {
      out.clear();
      assertEquals(e.getValue().size(), tree.search(e.getKey(), out), "count of " + e.getKey());
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
    for (int selector : new int[] {0, 3, 12}) {
      checkScan(tree, model, Long.MIN_VALUE, Long.MAX_VALUE, selector);
    }
    if (!model.map().isEmpty()) {
      long lo = model.map().firstKey();
      long hi = model.map().lastKey();
      checkScan(tree, model, lo, lo / 2 + hi / 2, 5);
      checkScan(tree, model, hi, hi, 1);
    }
  }
}
