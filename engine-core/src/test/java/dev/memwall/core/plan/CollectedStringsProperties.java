package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryEncoder;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Collecting dictionary-encoded strings (a pipeline ending in a stage whose string column is codes,
 * as a join's probe emits them) against the strings themselves: each chunk of a multi-batch input
 * (empty batches included) makes the stage emit one of a few source batches, whose dictionaries
 * are shared between sources or not, small or larger than {@link DictionaryEncoder#MAX_ENTRIES},
 * with null rows and null entries, or whose column is plain strings; a filter after the stage drops
 * rows. One to three workers collect, so parts meet different dictionaries in any order. The
 * collected table must hold the same rows, group and sort on its strings like them, and keep them
 * encoded when they all came from one small dictionary.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class CollectedStringsProperties {
  private static final String[] POOL = {"", "a", "ab", "MAIL", "SHIP", "1-URGENT", "grün", "é", "Z"};

  /** A batch the stage emits: ids 0..n-1 and their strings, codes into its dictionary (or plain). */
  private record Source(VectorSchemaRoot root, VarCharVector dictionary, Batch batch, List<String> strings) {}

  @Property(tries = 40)
  void collectedCodesReadBackAsTheirStrings(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3) int threads,
      @ForAll @IntRange(min = 1, max = 4) int sourceCount, @ForAll @IntRange(max = 40) int cut, EngineMemory memory) {
    Random random = new Random(seed);
    BufferAllocator allocator = memory.arrow();
    List<VarCharVector> dictionaries = new ArrayList<>();
    List<Source> sources = new ArrayList<>();
    try (Table input = input(random, memory)) {
      boolean oneSmallDictionary = true;
      for (int s = 0; s < sourceCount; s++) {
        VarCharVector dictionary;
        if (!dictionaries.isEmpty() && random.nextBoolean()) {
          dictionary = dictionaries.get(random.nextInt(dictionaries.size()));
        } else {
          dictionary = dictionary(random, random.nextInt(8) == 0 ? DictionaryEncoder.MAX_ENTRIES + 5
              : 1 + random.nextInt(random.nextBoolean() ? 6 : 300), allocator);
          dictionaries.add(dictionary);
        }
        boolean plain = random.nextInt(8) == 0;
        sources.add(source(random, dictionary, plain, 1 + random.nextInt(Chunk.CAPACITY), allocator));
        oneSmallDictionary &= !plain && dictionary == dictionaries.getFirst()
            && dictionary.getValueCount() <= DictionaryEncoder.MAX_ENTRIES;
      }
      List<String> expected = new ArrayList<>();
      Map<String, Long> expectedCounts = new TreeMap<>(Comparator.nullsFirst(Comparator.naturalOrder()));
      Map<Batch, Integer> batchIndex = new IdentityHashMap<>();
      for (int b = 0; b < input.batches().size(); b++) {
        Batch batch = input.batches().get(b);
        batchIndex.put(batch, b);
        for (int start = 0; start < batch.rowCount(); start += Chunk.CAPACITY) {
          Source source = sources.get(sourceOf(b, start, sources.size()));
          for (int id = cut; id < source.strings().size(); id++) {
            String value = source.strings().get(id);
            expected.add(id + "|" + value);
            expectedCounts.merge(value, 1L, Long::sum);
          }
        }
      }
      ExecutionContext context = new ExecutionContext(memory, threads);
      try (Table collected = Plan.scan(input).stage(stage(sources, batchIndex)).filter(col("id").ge(lit(cut)))
          .execute(context)) {
        List<String> actual = new ArrayList<>();
        for (Batch batch : collected.batches()) {
          for (int r = 0; r < batch.rowCount(); r++) {
            actual.add(batch.column(0).getObject(r) + "|" + batch.column(1).getObject(r));
          }
        }
        assertEquals(expected.stream().sorted().toList(), actual.stream().sorted().toList());
        boolean encoded = collected.schema().getFields().get(1).getDictionary() != null;
        Statistics.label("collected").collect(encoded ? "encoded" : "decoded",
            oneSmallDictionary ? "one small dictionary" : "several or large");
        if (oneSmallDictionary && TableBuilder.keepsEncoded(dictionaries.getFirst().getValueCount(), expected.size())) {
          assertNotNull(collected.schema().getFields().get(1).getDictionary(),
              "codes of one small dictionary were decoded");
        }
        try (Table grouped = Plan.scan(collected)
            .aggregate(List.of(col("s").as("s")), Aggregate.countStar("n"))
            .orderBy(SortKey.asc("s"))
            .execute(context)) {
          Map<String, Long> counts = new TreeMap<>(Comparator.nullsFirst(Comparator.naturalOrder()));
          List<String> order = new ArrayList<>();
          for (Batch batch : grouped.batches()) {
            for (int r = 0; r < batch.rowCount(); r++) {
              String value = (String) batch.column(0).getObject(r);
              counts.put(value, (Long) batch.column(1).getObject(r));
              order.add(value);
            }
          }
          assertEquals(expectedCounts, counts);
          List<String> sorted = new ArrayList<>(expectedCounts.keySet());
          sorted.sort(Comparator.nullsLast(Comparator.naturalOrder())); // no surrogates: UTF-16 order is byte order
          assertEquals(sorted, order);
        }
      }
    } finally {
      sources.forEach(source -> source.root().close());
      dictionaries.forEach(VarCharVector::close);
    }
  }

  /** Which source the chunk at {@code start} of input batch {@code batch} makes the stage emit. */
  private static int sourceOf(int batch, int start, int sources) {
    return (batch * 7 + start / Chunk.CAPACITY) % sources;
  }

  /** A stage emitting, for each chunk it receives, all rows of the source that chunk stands for. */
  private static ChunkStage stage(List<Source> sources, Map<Batch, Integer> batchIndex) {
    Schema schema = new Schema(List.of(ColumnType.INT64.toField("id", true, null),
        ColumnType.STRING.toField("s", true, new DictionaryEncoding(99, false, new ArrowType.Int(32, true)))));
    return new ChunkStage() {
      @Override
      public boolean narrowsOnly() {
        return false;
      }

      @Override
      public List<String> outputColumns(List<String> input) {
        return List.of("id", "s");
      }

      @Override
      public Schema outputSchema(Input input) {
        return schema;
      }

      @Override
      public Worker open(Input input, ExecutionContext context) {
        Chunk emitted = new Chunk();
        return new Worker() {
          @Override
          public void process(Chunk chunk, Consumer<Chunk> next) {
            Source source = sources.get(sourceOf(batchIndex.get(chunk.batch()), chunk.start(), sources.size()));
            emitted.reset(source.batch(), 0, source.batch().rowCount());
            next.accept(emitted);
          }

          @Override
          public void close() {}
        };
      }
    };
  }

  /** One to four batches of a single INT64 column, of up to 5000 rows each, some empty. */
  private static Table input(Random random, EngineMemory memory) {
    List<VectorSchemaRoot> roots = new ArrayList<>();
    Schema schema = null;
    try {
      int batches = 1 + random.nextInt(4);
      for (int b = 0; b < batches; b++) {
        try (TableBuilder builder = new TableBuilder(List.of("x"), List.of(ColumnType.INT64), memory.arrow())) {
          int rows = random.nextInt(5) == 0 ? 0 : random.nextInt(5000);
          for (int r = 0; r < rows; r++) {
            builder.appendLong(r).endRow();
          }
          schema = builder.schema();
          roots.addAll(builder.drainBatches());
        }
      }
      return Table.own(schema, roots, Map.of());
    } catch (RuntimeException | Error e) {
      roots.forEach(VectorSchemaRoot::close);
      throw e;
    }
  }

  /** {@code entries} values from a small pool (some repeated, now and then a null entry). */
  private static VarCharVector dictionary(Random random, int entries, BufferAllocator allocator) {
    VarCharVector values = new VarCharVector("dictionary", allocator);
    values.allocateNew(entries);
    for (int e = 0; e < entries; e++) {
      if (random.nextInt(30) == 0) {
        values.setNull(e);
      } else {
        String value = entries > 1000 ? "w" + e : POOL[random.nextInt(POOL.length)] + (random.nextBoolean() ? "" : e % 5);
        values.setSafe(e, value.getBytes(StandardCharsets.UTF_8));
      }
    }
    values.setValueCount(entries);
    return values;
  }

  /** A source of {@code rows} rows: ids, and random codes of {@code dictionary} (some rows null), or their strings. */
  private static Source source(Random random, VarCharVector dictionary, boolean plain, int rows,
      BufferAllocator allocator) {
    FieldType codeType = new FieldType(true, new ArrowType.Int(32, true),
        new DictionaryEncoding(1, false, new ArrowType.Int(32, true)));
    BigIntVector ids = new BigIntVector("id", allocator);
    FieldVector strings = plain ? new VarCharVector("s", allocator) : new IntVector("s", codeType, allocator);
    List<String> values = new ArrayList<>();
    ids.allocateNew(rows);
    strings.setInitialCapacity(rows);
    strings.allocateNew();
    for (int r = 0; r < rows; r++) {
      ids.set(r, r);
      int code = random.nextInt(dictionary.getValueCount());
      boolean nullRow = random.nextInt(15) == 0;
      String value = nullRow || dictionary.isNull(code) ? null : new String(dictionary.get(code), StandardCharsets.UTF_8);
      values.add(value);
      if (plain) {
        if (value == null) {
          ((VarCharVector) strings).setNull(r);
        } else {
          ((VarCharVector) strings).setSafe(r, value.getBytes(StandardCharsets.UTF_8));
        }
      } else if (nullRow) {
        ((IntVector) strings).setNull(r);
      } else {
        ((IntVector) strings).set(r, code);
      }
    }
    ids.setValueCount(rows);
    strings.setValueCount(rows);
    VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(ids, strings));
    DictionaryProvider provider = new DictionaryProvider.MapDictionaryProvider(
        new Dictionary(dictionary, codeType.getDictionary()));
    return new Source(root, dictionary, new Batch(root, provider), values);
  }
}
