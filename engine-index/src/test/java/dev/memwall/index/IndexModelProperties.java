package dev.memwall.index;

import static dev.memwall.index.TreeModel.fit;
import static dev.memwall.index.TreeModel.toList;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
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
import java.util.stream.Stream;
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
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The one model-test runner of every {@link OrderedIndex}: operation sequences give the answers of
 * {@link TreeModel} (a {@code TreeMap} of row-id lists), with the index's invariants checked after
 * every operation. Operations: inserts, deletes of present and of arbitrary entries, searches
 * ({@code search}, {@code searchFirst}, {@code contains}), range scans in batches of 1-13,
 * batched lookups, and for durable indexes syncs and reopens. Keys come with many duplicates and
 * the limits of both key types; indexes start empty or bulkloaded at any fill; scans cover random,
 * inverted, single-key, absent-key and whole ranges.
 *
 * <p>Each implementation's test class extends this one and provides {@link #subjects()}: the
 * configurations of that implementation to run, each a {@link Subject}. Updates run on
 * {@link UpdatableIndex}es only; a read-only index is bulkloaded and then read. A subclass sets the
 * tries with {@code @PropertyDefaults} and the sizes with {@link #maxOperations()} and
 * {@link #maxBulkloadEntries()}. Every try gets its own budget and temporary directory; a leak
 * fails the try ({@link PropertyLeakCheck}).
 */
@AddLifecycleHook(PropertyLeakCheck.class)
public abstract class IndexModelProperties {

  /** How to open a scan of an index: the runner's default, or a subject's own (see {@link Subject#scan}). */
  @FunctionalInterface
  public interface Scanner {
    /** A scan of {@code [lo, hi]}; {@code selector} is a random number the scanner may choose variants by. */
    IndexScan scan(OrderedIndex index, long lo, long hi, int selector);
  }

  /** Scans with {@link OrderedIndex#scan}. */
  public static final Scanner PLAIN_SCAN = (index, lo, hi, selector) -> index.scan(lo, hi);

  /**
   * One configuration of one implementation: how the runner builds it, commits it and reopens it.
   * Immutable; the runner hands it a fresh directory for any files.
   */
  public interface Subject extends Scanner {
    /** The key type of the indexes it builds. */
    KeyType keyType();

    /** An empty index (a read-only one bulkloaded from no entries). */
    OrderedIndex create(Path dir, EngineMemory memory);

    /** An index bulkloaded from {@code entries}, leaves {@code fill} full. */
    OrderedIndex bulkload(Path dir, EngineMemory memory, SortedEntries entries, double fill);

    /** Commits what {@code index} holds, for a durable index; nothing otherwise. */
    default void sync(OrderedIndex index) {}

    /**
     * For a durable index: closes {@code index} (which commits) and opens what it committed; for
     * any other, {@code index} itself.
     */
    default OrderedIndex reopen(OrderedIndex index, Path dir, EngineMemory memory) {
      return index;
    }

    @Override
    default IndexScan scan(OrderedIndex index, long lo, long hi, int selector) {
      return index.scan(lo, hi);
    }
  }

  /** The configurations of the implementation under test. */
  public abstract Arbitrary<Subject> subjects();

  /** The most operations of one sequence. */
  protected int maxOperations() {
    return 400;
  }

  /** The most entries of one bulkload. */
  protected int maxBulkloadEntries() {
    return 1000;
  }

  enum Kind { INSERT, DELETE_PRESENT, DELETE_ANY, SEARCH, SCAN, BATCH, SYNC, REOPEN }

  record Op(Kind kind, long a, long b, int selector) {}

  /** Keys with many duplicates, the limits of both key types and arbitrary values. */
  public static Arbitrary<Long> keys() {
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
    return Arbitraries.frequencyOf(Tuple.of(24, insert), Tuple.of(7, deletePresent), Tuple.of(2, deleteAny),
        Tuple.of(3, search), Tuple.of(3, scan), Tuple.of(2, batch),
        Tuple.of(1, Arbitraries.just(new Op(Kind.SYNC, 0, 0, 0))),
        Tuple.of(1, Arbitraries.just(new Op(Kind.REOPEN, 0, 0, 0)))).list().ofMaxSize(maxOperations());
  }

  @Provide
  Arbitrary<List<Long>> bulkloadKeys() {
    return keys().list().ofMaxSize(maxBulkloadEntries());
  }

  /** From an empty index (for a read-only one, an empty bulkload, then reads only). */
  @Property(afterFailure = AfterFailureMode.RANDOM_SEED)
  void randomOperationsMatchTreeMap(@ForAll("subjects") Subject subject, @ForAll("operations") List<Op> ops,
      EngineMemory memory) {
    try (Handle handle = new Handle(subject, memory)) {
      handle.index = subject.create(handle.dir, memory);
      TreeModel model = new TreeModel();
      run(handle, model, ops);
      assertMatches(subject, handle.index, model);
      handle.reopen();
      assertMatches(subject, handle.index, model);
    }
  }

  @Property(afterFailure = AfterFailureMode.RANDOM_SEED)
  void bulkloadThenOperationsMatchTreeMap(@ForAll("subjects") Subject subject,
      @ForAll("bulkloadKeys") List<Long> keys, @ForAll @DoubleRange(min = 0.05, max = 1.0) double fill,
      @ForAll("operations") List<Op> ops, EngineMemory memory) {
    KeyType type = subject.keyType();
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
    try (Handle handle = new Handle(subject, memory)) {
      handle.index = subject.bulkload(handle.dir, memory, SortedEntries.of(k, r), fill);
      assertMatches(subject, handle.index, model);
      run(handle, model, ops);
      assertMatches(subject, handle.index, model);
    }
  }

  /**
   * Sorted, reversed and round-robin entries from the key type's minimum up (and near its maximum
   * for round robin), every key duplicated, inserted one by one or bulkloaded; then, for an
   * updatable index, every entry deleted in random order (and deletes of absent row ids refused)
   * down to an empty index, which then takes the entries again.
   */
  @Property(afterFailure = AfterFailureMode.RANDOM_SEED)
  void sortedReverseAndDuplicateEntriesThenDeletesToEmpty(@ForAll("subjects") Subject subject,
      @ForAll @IntRange(min = 0, max = 1500) int count, @ForAll @IntRange(min = 0, max = 2) int order,
      @ForAll @IntRange(min = 1, max = 60) int distinct, @ForAll boolean bulkload, @ForAll long seed,
      EngineMemory memory) {
    KeyType type = subject.keyType();
    List<long[]> entries = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      long key = order == 2 ? type.max() - (i % distinct) : type.min() + (long) (i % distinct) * 3;
      entries.add(new long[] {key, i});
    }
    switch (order) {
      case 0 -> entries.sort(Comparator.comparingLong(e -> e[0]));
      case 1 -> entries.sort(Comparator.comparingLong((long[] e) -> e[0]).reversed());
      default -> { } // round robin: every key duplicated across the sequence
    }
    TreeModel model = new TreeModel();
    for (long[] e : entries) {
      model.insert(e[0], e[1]);
    }
    try (Handle handle = new Handle(subject, memory)) {
      handle.index = bulkload ? null : subject.create(handle.dir, memory);
      if (handle.index instanceof UpdatableIndex empty) {
        for (int i = 0; i < entries.size(); i++) {
          empty.insert(entries.get(i)[0], entries.get(i)[1]);
          if (i % 97 == 0) {
            empty.checkInvariants();
          }
        }
      } else {
        handle.closeIndex(); // a read-only subject's empty index: it is bulkloaded instead
        List<long[]> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparingLong(e -> e[0])); // stable: a key's row ids keep the model's order
        handle.index = subject.bulkload(handle.dir, memory, SortedEntries.of(
            sorted.stream().mapToLong(e -> e[0]).toArray(), sorted.stream().mapToLong(e -> e[1]).toArray()), 1.0);
      }
      assertMatches(subject, handle.index, model);
      if (!(handle.index instanceof UpdatableIndex index)) {
        return;
      }
      Collections.shuffle(entries, new Random(seed));
      for (int i = 0; i < entries.size(); i++) {
        long[] e = entries.get(i);
        assertTrue(index.delete(e[0], e[1]), "delete of a present entry");
        assertTrue(model.delete(e[0], e[1]));
        assertFalse(index.delete(e[0], -1 - e[1]), "delete of an absent row id");
        if (i % 17 == 0) {
          index.checkInvariants();
        }
        if (i % 500 == 0) {
          subject.sync(index);
        }
      }
      assertEquals(0, index.size());
      assertMatches(subject, index, model);
      for (long[] e : entries) {
        assertFalse(index.contains(e[0]));
      }
      for (long[] e : entries) {
        index.insert(e[0], e[1] + 1);
        model.insert(e[0], e[1] + 1);
      }
      assertMatches(subject, index, model);
    }
  }

  // ---- the runner ----------------------------------------------------------------------------

  /** The index under test, replaced when a durable one is reopened, and the directory of its files. */
  static final class Handle implements AutoCloseable {
    final Subject subject;
    final EngineMemory memory;
    final Path dir;
    OrderedIndex index;

    Handle(Subject subject, EngineMemory memory) {
      this.subject = subject;
      this.memory = memory;
      try {
        this.dir = Files.createTempDirectory("index-model");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    void reopen() {
      OrderedIndex old = index;
      index = null; // closed by reopen, even if opening fails
      index = subject.reopen(old, dir, memory);
    }

    void closeIndex() {
      if (index != null) {
        OrderedIndex old = index;
        index = null;
        old.close();
      }
    }

    @Override
    public void close() {
      try {
        closeIndex();
      } finally {
        try (Stream<Path> files = Files.walk(dir)) {
          for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(p);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  private static void run(Handle handle, TreeModel model, List<Op> ops) {
    KeyType type = handle.subject.keyType();
    for (Op op : ops) {
      OrderedIndex index = handle.index;
      UpdatableIndex updatable = index instanceof UpdatableIndex u ? u : null;
      switch (op.kind()) {
        case INSERT -> {
          if (updatable != null) {
            long key = fit(type, op.a());
            updatable.insert(key, op.b());
            model.insert(key, op.b());
          }
        }
        case DELETE_PRESENT -> {
          if (updatable != null && model.size() > 0) {
            long[] entry = model.pick(op.selector());
            assertTrue(updatable.delete(entry[0], entry[1]), "delete of a present entry");
            model.delete(entry[0], entry[1]);
          }
        }
        case DELETE_ANY -> {
          if (updatable != null) {
            long key = fit(type, op.a());
            assertEquals(model.delete(key, op.b()), updatable.delete(key, op.b()), "delete of " + key + "/" + op.b());
          }
        }
        case SEARCH -> checkSearch(index, model, fit(type, op.a()));
        case SCAN -> checkScan(handle.subject, index, model, fit(type, op.a()), fit(type, op.b()), op.selector());
        case BATCH -> checkBatch(index, model, op.selector());
        case SYNC -> handle.subject.sync(index);
        case REOPEN -> handle.reopen();
      }
      handle.index.checkInvariants();
      assertEquals(model.size(), handle.index.size());
    }
  }

  private static void checkSearch(OrderedIndex index, TreeModel model, long key) {
    List<Long> rows = model.rows(key);
    RowIds out = new RowIds();
    assertEquals(rows.size(), index.search(key, out), "count of " + key);
    assertEquals(rows, toList(out), "row ids of " + key);
    assertEquals(rows.isEmpty() ? -7 : rows.get(0), index.searchFirst(key, -7), "first row id of " + key);
    assertEquals(!rows.isEmpty(), index.contains(key), "contains " + key);
  }

  /**
   * Scans {@code [lo, hi]} in batches of {@code 1 + selector % 13} (keys and row ids) and checks
   * them against the model, and that the exhausted scan stays exhausted.
   */
  public static void checkScan(Scanner scanner, OrderedIndex index, TreeModel model, long lo, long hi,
      int selector) {
    int batch = 1 + selector % 13;
    IndexScan scan = scanner.scan(index, lo, hi, selector);
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

  /** {@link #checkScan(Scanner, OrderedIndex, TreeModel, long, long, int)} with {@link #PLAIN_SCAN}. */
  public static void checkScan(OrderedIndex index, TreeModel model, long lo, long hi, int selector) {
    checkScan(PLAIN_SCAN, index, model, lo, hi, selector);
  }

  /** A batched lookup of up to 39 keys, present and absent ones and the type's limits, picked by {@code selector}. */
  private static void checkBatch(OrderedIndex index, TreeModel model, int selector) {
    KeyType type = index.keyType();
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
    out.add(-1); // the call clears it first
    index.lookupBatch(keys, count, offsets, out);
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

  /**
   * Checks everything {@code index} answers against {@code model}: its invariants and size, the
   * lookups of every present key and of absent ones (the key type's limits among them), scans of
   * the whole key range in several batch sizes, of parts of it, of single keys, of absent keys and
   * of an inverted range, and a batched lookup; scans opened by {@code scanner}.
   */
  public static void assertMatches(Scanner scanner, OrderedIndex index, TreeModel model) {
    index.checkInvariants();
    assertEquals(model.size(), index.size());
    for (Map.Entry<Long, List<Long>> e : model.map().entrySet()) {
      checkSearch(index, model, e.getKey());
    }
    KeyType type = index.keyType();
    long[] probes = {type.min(), type.max(), 0, -1, 1, 99};
    for (long probe : probes) {
      checkSearch(index, model, probe);
      checkScan(scanner, index, model, probe, probe, (int) (probe & 7));
    }
    for (int selector : new int[] {0, 1, 2, 3, 4, 8, 12}) {
      checkScan(scanner, index, model, type.min(), type.max(), selector);
    }
    if (!model.map().isEmpty()) {
      long lo = model.map().firstKey();
      long hi = model.map().lastKey();
      checkScan(scanner, index, model, lo, lo / 2 + hi / 2, 5);
      checkScan(scanner, index, model, hi, hi, 1);
      checkScan(scanner, index, model, hi, lo, 6); // inverted unless a single key: empty
    }
    checkBatch(index, model, 17);
  }

  /** {@link #assertMatches(Scanner, OrderedIndex, TreeModel)} with {@link #PLAIN_SCAN}. */
  public static void assertMatches(OrderedIndex index, TreeModel model) {
    assertMatches(PLAIN_SCAN, index, model);
  }
}
