package dev.memwall.core.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * String columns a {@link TableBuilder} writes as dictionary codes, against the strings appended:
 * parts (one per worker, as operators make them) fed from several random dictionaries (1, 2 and 4
 * byte codes, values shared between dictionaries, duplicate and null entries, now and then one larger
 * than {@link DictionaryEncoder#MAX_ENTRIES}), plain strings and nulls, row by row and in bulk, some
 * parts empty and some with the column decoded, are concatenated into one table that reads back
 * what was appended, keeps the column encoded only when its dictionary is small against the rows,
 * and leaks nothing.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class EncodedStringsProperties {
  private static final String[] POOL = {"", "a", "ab", "MAIL", "SHIP", "1-URGENT", "grün", "é", "promo tin", "Z"};

  /** A source dictionary and a column of its codes: row {@code r < entries} has code r, the last row is null. */
  private record Source(VarCharVector values, BaseIntVector codes, DictionaryColumn column, List<String> strings)
      implements AutoCloseable {
    int entries() {
      return strings.size();
    }

    @Override
    public void close() {
      values.close();
      ((FieldVector) codes).close();
    }
  }

  @Property(tries = 60)
  void encodedPartsReadBackWhatWasAppended(@ForAll long seed, @ForAll @IntRange(min = 1, max = 4) int partCount,
      @ForAll @IntRange(min = 1, max = 4) int sourceCount, @ForAll @IntRange(max = 5000) int maxRows,
      EngineMemory memory) {
    Random random = new Random(seed);
    BufferAllocator allocator = memory.arrow();
    List<Source> sources = new ArrayList<>();
    List<TableBuilder> parts = new ArrayList<>();
    try {
      for (int s = 0; s < sourceCount; s++) {
        int entries = random.nextInt(20) == 0 ? DictionaryEncoder.MAX_ENTRIES + 1 + random.nextInt(100)
            : 1 + random.nextInt(random.nextBoolean() ? 8 : 200);
        sources.add(source(random, entries, s, allocator));
      }
      List<String> expected = new ArrayList<>();
      boolean allEncoded = true;
      boolean onlyFirstSource = true;
      for (int p = 0; p < partCount; p++) {
        boolean encode = random.nextInt(5) != 0;
        allEncoded &= encode;
        TableBuilder part = new TableBuilder(List.of("n", "s"), List.of(ColumnType.INT64, ColumnType.STRING),
            new boolean[] {false, encode}, allocator);
        parts.add(part);
        int rows = random.nextInt(6) == 0 ? 0 : random.nextInt(maxRows + 1);
        for (int done = 0; done < rows; ) {
          if (random.nextInt(3) == 0) {
            int fit = part.reserveRows(Math.min(rows - done, 1 + random.nextInt(2000)));
            Source source = sources.get(random.nextInt(sources.size()));
            onlyFirstSource &= source == sources.getFirst();
            appendBulk(part, source, random, fit, expected);
            done += fit;
          } else {
            onlyFirstSource &= appendRow(part, sources, random, expected);
            done++;
          }
        }
      }
      try (Table table = TableBuilder.concatenate(parts)) {
        assertEquals(expected.size(), table.rowCount());
        int r = 0;
        for (Batch batch : table.batches()) {
          for (int row = 0; row < batch.rowCount(); row++, r++) {
            assertEquals((long) r, batch.column(0).getObject(row));
            assertEquals(expected.get(r), batch.column(1).getObject(row), "row " + r);
          }
        }
        var encoding = table.schema().getFields().get(1).getDictionary();
        Statistics.label("column in the table").collect(encoding != null ? "encoded" : "decoded",
            onlyFirstSource ? "from one dictionary" : "from several, or strings");
        if (encoding != null) {
          assertTrue(allEncoded, "a column decoded in a part is encoded in the table");
          int entries = table.dictionaries().get(encoding.getId()).getVector().getValueCount();
          assertTrue(TableBuilder.keepsEncoded(entries, table.rowCount()), entries + " entries for "
              + table.rowCount() + " rows");
          for (Batch batch : table.batches()) {
            assertTrue(batch.column(1) instanceof DictionaryColumn);
          }
        } else if (allEncoded && onlyFirstSource && sources.getFirst().entries() <= DictionaryEncoder.MAX_ENTRIES) {
          assertTrue(!TableBuilder.keepsEncoded(sources.getFirst().entries(), table.rowCount()),
              "codes of one small dictionary were decoded");
        }
      }
    } finally {
      parts.forEach(TableBuilder::close);
      sources.forEach(Source::close);
    }
  }

  /** Appends one row: a code of a source, a null row of one, a plain string or a null. Returns whether only the first source (or none) was used. */
  private static boolean appendRow(TableBuilder part, List<Source> sources, Random random, List<String> expected) {
    part.appendLong(expected.size());
    boolean first = true;
    switch (random.nextInt(6)) {
      case 0 -> {
        part.appendNull();
        expected.add(null);
      }
      case 1 -> {
        String value = POOL[random.nextInt(POOL.length)] + random.nextInt(3);
        part.appendString(value.getBytes(StandardCharsets.UTF_8));
        expected.add(value);
        first = false;
      }
      default -> {
        Source source = sources.get(random.nextInt(sources.size()));
        int row = random.nextInt(12) == 0 ? source.entries() : random.nextInt(source.entries());
        part.appendFrom(source.column(), row);
        expected.add(row == source.entries() ? null : source.strings().get(row));
        first = source == sources.getFirst();
      }
    }
    part.endRow();
    return first;
  }

  /** Writes {@code fit} rows of {@code source} at random in bulk, as a collecting operator does. */
  private static void appendBulk(TableBuilder part, Source source, Random random, int fit, List<String> expected) {
    int at = part.nextRow();
    BigIntVector numbers = (BigIntVector) part.vector(0);
    DictionaryEncoder encoder = part.encoder(1);
    DictionaryColumn column = source.column();
    boolean codes = encoder != null && encoder.accepts(column.dictionary(), DictionaryEncoder.MAX_ENTRIES);
    for (int i = 0; i < fit; i++) {
      numbers.set(at + i, expected.size());
      int row = random.nextInt(12) == 0 ? source.entries() : random.nextInt(source.entries());
      expected.add(row == source.entries() ? null : source.strings().get(row));
      if (encoder == null) {
        TableBuilder.copyString(column, row, (VarCharVector) part.vector(1), at + i);
        continue;
      }
      IntVector target = (IntVector) part.vector(1);
      int code = column.isNull(row) ? -1
          : codes && encoder.copiesCodesOf(column.dictionary()) ? column.code(row) : encoder.code(column.dictionary(), column.code(row));
      if (code < 0) {
        target.setNull(at + i);
      } else {
        TableBuilder.setInt32(target, at + i, code);
      }
    }
    part.commitRows(fit);
  }

  /**
   * A dictionary of {@code entries} values drawn from a small pool (so dictionaries share values and
   * may repeat one), now and then a null entry, and a column of its codes in 1, 2 or 4 bytes.
   */
  private static Source source(Random random, int entries, int id, BufferAllocator allocator) {
    VarCharVector values = new VarCharVector("dictionary" + id, allocator);
    BaseIntVector codes = null;
    try {
      List<String> strings = new ArrayList<>();
      values.allocateNew(entries);
      Set<String> seen = new HashSet<>();
      for (int e = 0; e < entries; e++) {
        String value = entries > 1000 ? "v" + e
            : random.nextInt(25) == 0 ? null : POOL[random.nextInt(POOL.length)] + (random.nextInt(4) == 0 ? "" : e % 7);
        if (value != null && random.nextInt(10) != 0 && !seen.add(value)) {
          value = value + "#" + e; // mostly distinct, sometimes a duplicate entry
        }
        strings.add(value);
        if (value == null) {
          values.setNull(e);
        } else {
          values.setSafe(e, value.getBytes(StandardCharsets.UTF_8));
        }
      }
      values.setValueCount(entries);
      int bits = entries > Short.MAX_VALUE ? 32 : entries > Byte.MAX_VALUE ? (random.nextBoolean() ? 16 : 32)
          : new int[] {8, 16, 32}[random.nextInt(3)];
      FieldType type = new FieldType(true, new ArrowType.Int(bits, true),
          new DictionaryEncoding(id, false, new ArrowType.Int(bits, true)));
      codes = switch (bits) {
        case 8 -> new TinyIntVector("codes" + id, type, allocator);
        case 16 -> new SmallIntVector("codes" + id, type, allocator);
        default -> new IntVector("codes" + id, type, allocator);
      };
      ((FieldVector) codes).setInitialCapacity(entries + 1);
      ((FieldVector) codes).allocateNew();
      for (int e = 0; e < entries; e++) {
        codes.setWithPossibleTruncate(e, e);
      }
      ((BaseFixedWidthVector) codes).setNull(entries);
      ((FieldVector) codes).setValueCount(entries + 1);
      return new Source(values, codes, new DictionaryColumn(codes, new VarCharColumn(values)), strings);
    } catch (RuntimeException | Error e) {
      values.close();
      if (codes != null) {
        ((FieldVector) codes).close();
      }
      throw e;
    }
  }
}
