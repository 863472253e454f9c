package dev.memwall.core.vector;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Rows of one column of each Arrow type memwall reads through a view or a new kind (bool, int8,
 * int16, float32, date64, timestamps of every unit with and without a zone, decimal(38,4),
 * large_utf8, a dictionary of large_utf8 values with int16 codes) and one it does not read
 * (time64), random with the types' limits (Byte.MIN_VALUE, Short.MAX_VALUE, NaN, -0.0f, days and
 * instants before 1970) and nulls; written to Arrow vectors as Arrow Java writes them, and
 * expected back as {@link Column#getObject} reads them.
 */
public final class TypedRows {
  /** The readable columns, in schema order; "odd" (time64[us]) follows them. */
  public static final List<String> COLUMNS = List.of("flag", "tiny", "small", "real", "day", "ts_s", "ts_ms",
      "ts_us", "ts_ns", "wide", "text", "word");

  /** The zone of column ts_ns. */
  public static final String NEW_YORK = "America/New_York";

  static final long DICTIONARY_ID = 7;
  private static final String[] WORDS = {"", "alpha", "beta", "ünïcödé", "gamma delta", "z"};
  private static final float[] FLOATS = {Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
      Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, 1.5f, -2.25f};

  /**
   * One row; a null field is a null value. Timestamps are their stored counts of units; {@code day}
   * is days (stored as days * 86,400,000 ms); {@code wide} has scale 4.
   */
  public record Row(Boolean flag, Byte tiny, Short small, Float real, Long day, Long tsSeconds, Long tsMillis,
      Long tsMicros, Long tsNanos, BigDecimal wide, String text, String word, Long odd) {
    /** What {@link Column#getObject} of each readable column gives, in {@link #COLUMNS} order. */
    public List<Object> expected() {
      List<Object> values = new ArrayList<>();
      values.add(flag);
      values.add(tiny == null ? null : (int) tiny);
      values.add(small == null ? null : (int) small);
      values.add(real == null ? null : (double) real);
      values.add(day == null ? null : LocalDate.ofEpochDay(day));
      values.add(tsSeconds == null ? null : LocalDateTime.ofEpochSecond(tsSeconds, 0, ZoneOffset.UTC));
      values.add(tsMillis == null ? null : Instant.ofEpochMilli(tsMillis));
      values.add(tsMicros == null ? null : LocalDateTime.ofInstant(micros(tsMicros), ZoneOffset.UTC));
      values.add(tsNanos == null ? null : Instant.ofEpochSecond(0, tsNanos));
      values.add(wide);
      values.add(text);
      values.add(word);
      return values;
    }
  }

  private TypedRows() {}

  /** The instant of a count of microseconds. */
  public static Instant micros(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000);
  }

  /** {@code count} random rows, about one value in ten null, limits over-represented. */
  public static List<Row> random(Random random, int count) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rows.add(new Row(
          nullOr(random, random.nextBoolean()),
          nullOr(random, (byte) (random.nextInt(8) == 0 ? (random.nextBoolean() ? Byte.MIN_VALUE : Byte.MAX_VALUE)
              : random.nextInt(256) - 128)),
          nullOr(random, (short) (random.nextInt(8) == 0 ? (random.nextBoolean() ? Short.MIN_VALUE : Short.MAX_VALUE)
              : random.nextInt(65536) - 32768)),
          nullOr(random, random.nextInt(3) == 0 ? FLOATS[random.nextInt(FLOATS.length)]
              : (random.nextFloat() - 0.5f) * 2000),
          nullOr(random, (long) random.nextInt(-200_000, 200_000)),
          nullOr(random, random.nextLong(-5_000_000_000L, 5_000_000_000L)),
          nullOr(random, random.nextLong(-5_000_000_000_000L, 5_000_000_000_000L)),
          nullOr(random, random.nextInt(8) == 0 ? -1L : random.nextLong(-5_000_000_000_000_000L, 5_000_000_000_000_000L)),
          nullOr(random, random.nextInt(8) == 0 ? (random.nextBoolean() ? Long.MIN_VALUE + 1 : Long.MAX_VALUE)
              : random.nextLong()),
          nullOr(random, BigDecimal.valueOf(random.nextInt(8) == 0 ? (random.nextBoolean() ? Long.MAX_VALUE
              : Long.MIN_VALUE) : random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L), 4)),
          nullOr(random, WORDS[random.nextInt(WORDS.length)] + random.nextInt(50)),
          nullOr(random, WORDS[random.nextInt(WORDS.length)]),
          nullOr(random, random.nextLong(0, 86_400_000_000L))));
    }
    return rows;
  }

  private static <T> T nullOr(Random random, T value) {
    return random.nextInt(10) == 0 ? null : value;
  }

  /** The dictionary of column word (large_utf8 values, int16 codes); the caller closes its vector. */
  public static Dictionary dictionary(BufferAllocator allocator) {
    LargeVarCharVector values = new LargeVarCharVector("word-values", allocator);
    values.allocateNew();
    for (int i = 0; i < WORDS.length; i++) {
      values.setSafe(i, WORDS[i].getBytes(StandardCharsets.UTF_8));
    }
    values.setValueCount(WORDS.length);
    return new Dictionary(values, encoding());
  }

  private static DictionaryEncoding encoding() {
    return new DictionaryEncoding(DICTIONARY_ID, false, new ArrowType.Int(16, true));
  }

  /** A provider of {@code dictionary}. */
  public static DictionaryProvider provider(Dictionary dictionary) {
    return new DictionaryProvider.MapDictionaryProvider(dictionary);
  }

  /** A new root (the caller's to close) holding {@code rows}. */
  public static VectorSchemaRoot root(List<Row> rows, BufferAllocator allocator) {
    Map<String, FieldVector> vectors = new LinkedHashMap<>();
    try {
      vectors.put("flag", new BitVector("flag", allocator));
      vectors.put("tiny", new TinyIntVector("tiny", allocator));
      vectors.put("small", new SmallIntVector("small", allocator));
      vectors.put("real", new Float4Vector("real", allocator));
      vectors.put("day", new DateMilliVector("day", allocator));
      vectors.put("ts_s", new TimeStampSecVector("ts_s", allocator));
      vectors.put("ts_ms", new TimeStampMilliTZVector("ts_ms", allocator, "UTC"));
      vectors.put("ts_us", new TimeStampMicroVector("ts_us", allocator));
      vectors.put("ts_ns", new TimeStampNanoTZVector("ts_ns", allocator, NEW_YORK));
      vectors.put("wide", new DecimalVector("wide", allocator, 38, 4));
      vectors.put("text", new LargeVarCharVector("text", allocator));
      vectors.put("word", new SmallIntVector("word", new FieldType(true, encoding().getIndexType(), encoding()),
          allocator));
      vectors.put("odd", new TimeMicroVector("odd", allocator));
      VectorSchemaRoot root = new VectorSchemaRoot(new ArrayList<>(vectors.values()));
      root.allocateNew();
      for (int i = 0; i < rows.size(); i++) {
        write(root, i, rows.get(i));
      }
      root.setRowCount(rows.size());
      return root;
    } catch (RuntimeException e) {
      vectors.values().forEach(FieldVector::close);
      throw e;
    }
  }

  private static void write(VectorSchemaRoot root, int i, Row row) {
    if (row.flag() == null) {
      ((BitVector) root.getVector("flag")).setNull(i);
    } else {
      ((BitVector) root.getVector("flag")).setSafe(i, row.flag() ? 1 : 0);
    }
    if (row.tiny() == null) {
      ((TinyIntVector) root.getVector("tiny")).setNull(i);
    } else {
      ((TinyIntVector) root.getVector("tiny")).setSafe(i, row.tiny());
    }
    if (row.small() == null) {
      ((SmallIntVector) root.getVector("small")).setNull(i);
    } else {
      ((SmallIntVector) root.getVector("small")).setSafe(i, row.small());
    }
    if (row.real() == null) {
      ((Float4Vector) root.getVector("real")).setNull(i);
    } else {
      ((Float4Vector) root.getVector("real")).setSafe(i, row.real());
    }
    if (row.day() == null) {
      ((DateMilliVector) root.getVector("day")).setNull(i);
    } else {
      ((DateMilliVector) root.getVector("day")).setSafe(i, row.day() * Date64Column.MILLIS_PER_DAY);
    }
    setLong(root, "ts_s", i, row.tsSeconds());
    setLong(root, "ts_ms", i, row.tsMillis());
    setLong(root, "ts_us", i, row.tsMicros());
    setLong(root, "ts_ns", i, row.tsNanos());
    setLong(root, "odd", i, row.odd());
    DecimalVector wide = (DecimalVector) root.getVector("wide");
    if (row.wide() == null) {
      wide.setNull(i);
    } else {
      wide.setSafe(i, row.wide());
    }
    LargeVarCharVector text = (LargeVarCharVector) root.getVector("text");
    if (row.text() == null) {
      text.setNull(i);
    } else {
      text.setSafe(i, row.text().getBytes(StandardCharsets.UTF_8));
    }
    SmallIntVector word = (SmallIntVector) root.getVector("word");
    if (row.word() == null) {
      word.setNull(i);
    } else {
      word.setSafe(i, List.of(WORDS).indexOf(row.word()));
    }
  }

  private static void setLong(VectorSchemaRoot root, String column, int i, Long value) {
    var vector = (org.apache.arrow.vector.BaseFixedWidthVector) root.getVector(column);
    if (value == null) {
      vector.setNull(i);
    } else if (vector instanceof TimeMicroVector times) {
      times.setSafe(i, value);
    } else {
      ((org.apache.arrow.vector.TimeStampVector) vector).setSafe(i, value);
    }
  }

  /** The rows of every readable column of {@code table}, as {@link Column#getObject} reads them. */
  public static List<List<Object>> read(Table table) {
    List<List<Object>> rows = new ArrayList<>();
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        List<Object> row = new ArrayList<>();
        for (String column : COLUMNS) {
          row.add(batch.column(column).getObject(r));
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
