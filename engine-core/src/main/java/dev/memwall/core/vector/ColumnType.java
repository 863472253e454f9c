package dev.memwall.core.vector;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The logical type of a memwall column and how it maps onto Arrow.
 *
 * <ul>
 *   <li>{@code INT32}: Arrow Int(32, signed); Int(8) and Int(16) columns are read as INT32 too,
 *       through views that read the narrow width (no copy). Unsigned integers are not read (a
 *       uint64 need not fit an int64; widening the narrower ones is left to the producer).
 *   <li>{@code INT64}: Arrow Int(64, signed).
 *   <li>{@code FLOAT64}: Arrow FloatingPoint(DOUBLE); FloatingPoint(SINGLE) columns are read as
 *       FLOAT64 values through a view (every float is exactly a double, NaN and -0.0 included).
 *   <li>{@code DATE}: Arrow Date(DAY), days since 1970-01-01. Date(MILLISECOND) columns are read
 *       as DATE: each value must be a whole number of days (as the Arrow format asks), and a value
 *       that is not fails the query that reads it with an {@link ArithmeticException} naming the
 *       column and the row, rather than being truncated.
 *   <li>{@code DECIMAL}: a scaled int64 (value = unscaled / 10^scale) stored as Arrow Int(64) with
 *       the field metadata {@value #SCALE_METADATA_KEY}; 8 bytes a value instead of Arrow
 *       Decimal128's 16, which halves the bandwidth a scan needs. Arrow Decimal128 columns of any
 *       precision up to 38 and scale 0..18 (a caller's own batches, Spark's sums) are read as
 *       DECIMAL too: up to precision {@value #MAX_DECIMAL128_PRECISION} every value fits; above
 *       it each value is checked as it is read, and one whose unscaled value needs more than 64
 *       bits fails the query with an {@link ArithmeticException} naming the column, its type, the
 *       row and the value (never a wrapped value).
 *   <li>{@code STRING}: Arrow Utf8 or LargeUtf8, or either dictionary-encoded with signed 1, 2 or
 *       4 byte codes for low-cardinality columns. Strings memwall writes are Utf8.
 *   <li>{@code BOOLEAN}: Arrow Bool. Computed on as the integers 0 (false) and 1 (true): a boolean
 *       column is a predicate ({@code filter(col("flag"))}), compares with boolean constants and
 *       groups, sorts (false first) and takes MIN/MAX; it takes no arithmetic.
 *   <li>{@code TIMESTAMP}: Arrow Timestamp in any unit, with or without a time zone, held as its
 *       int64 count of units since 1970-01-01T00:00 (negative before), exactly as Arrow stores it.
 *       The {@link #scale} says the unit in digits of a second (0 SECOND, 3 MILLISECOND, 6
 *       MICROSECOND, 9 NANOSECOND), so timestamps of different units align like decimal scales.
 *       Without a {@link #zone} a value is a wall-clock time; with one it is an instant (counted in
 *       UTC, as Arrow does) whose fields such as the year are read in that zone.
 * </ul>
 *
 * <p>Other Arrow types (unsigned and 256-bit types, half floats, times, intervals, binary, nested
 * types) have no memwall kind: {@link #of} refuses them naming the column, and readers leave such
 * columns out of the tables they make, so they only fail a query that names them
 * ({@link Table#leftOut}).
 *
 * @param kind the logical kind
 * @param scale digits after the decimal point for {@code DECIMAL}, of a second for {@code TIMESTAMP}
 *     (0, 3, 6 or 9); 0 otherwise
 * @param zone a {@code TIMESTAMP}'s time zone as Arrow names it ("UTC", "+05:30",
 *     "Europe/Paris"), or null: no zone (and null for every other kind)
 */
public record ColumnType(Kind kind, int scale, String zone) {
  /**
   * The largest precision of an Arrow Decimal128 column whose every value fits memwall's int64
   * decimals; wider ones are read with a check per value.
   */
  public static final int MAX_DECIMAL128_PRECISION = 18;

  /** The largest precision of an Arrow Decimal128. */
  public static final int MAX_ARROW_DECIMAL_PRECISION = 38;

  /** Field metadata key carrying a DECIMAL column's scale. */
  public static final String SCALE_METADATA_KEY = "memwall.decimal.scale";

  public static final ColumnType INT32 = new ColumnType(Kind.INT32, 0);
  public static final ColumnType INT64 = new ColumnType(Kind.INT64, 0);
  public static final ColumnType FLOAT64 = new ColumnType(Kind.FLOAT64, 0);
  public static final ColumnType DATE = new ColumnType(Kind.DATE, 0);
  public static final ColumnType STRING = new ColumnType(Kind.STRING, 0);
  public static final ColumnType BOOLEAN = new ColumnType(Kind.BOOLEAN, 0);

  /** The logical kinds. */
  public enum Kind { INT32, INT64, FLOAT64, DATE, DECIMAL, STRING, BOOLEAN, TIMESTAMP }

  public ColumnType {
    boolean scaled = kind == Kind.DECIMAL || kind == Kind.TIMESTAMP;
    if (scale < 0 || scale > 18 || (!scaled && scale != 0) || (kind == Kind.TIMESTAMP && scale % 3 != 0)
        || (kind == Kind.TIMESTAMP && scale > 9)) {
      throw new IllegalArgumentException("invalid scale " + scale + " for " + kind);
    }
    if (zone != null) {
      if (kind != Kind.TIMESTAMP) {
        throw new IllegalArgumentException("only timestamps have a time zone, not " + kind);
      }
      try {
        ZoneId.of(zone);
      } catch (DateTimeException e) {
        throw new IllegalArgumentException("unknown time zone '" + zone + "': " + e.getMessage());
      }
    }
  }

  /** A type without a time zone. */
  public ColumnType(Kind kind, int scale) {
    this(kind, scale, null);
  }

  /** A decimal with {@code scale} digits after the point (0..18). */
  public static ColumnType decimal(int scale) {
    return new ColumnType(Kind.DECIMAL, scale);
  }

  /**
   * A timestamp in {@code unit}, in time zone {@code zone} (an instant) or, when null, without one
   * (a wall-clock time).
   *
   * @throws IllegalArgumentException for a zone {@link ZoneId#of} does not know
   */
  public static ColumnType timestamp(TimeUnit unit, String zone) {
    return new ColumnType(Kind.TIMESTAMP, digitsOf(unit), zone);
  }

  /** A TIMESTAMP's unit. */
  public TimeUnit unit() {
    if (kind != Kind.TIMESTAMP) {
      throw new IllegalStateException(this + " has no time unit");
    }
    return switch (scale) {
      case 0 -> TimeUnit.SECOND;
      case 3 -> TimeUnit.MILLISECOND;
      case 6 -> TimeUnit.MICROSECOND;
      default -> TimeUnit.NANOSECOND;
    };
  }

  /** A TIMESTAMP's zone as a {@link ZoneId}, or null without one. */
  public ZoneId zoneId() {
    return zone == null ? null : ZoneId.of(zone);
  }

  private static int digitsOf(TimeUnit unit) {
    return switch (unit) {
      case SECOND -> 0;
      case MILLISECOND -> 3;
      case MICROSECOND -> 6;
      case NANOSECOND -> 9;
    };
  }

  /**
   * Whether values are read as {@code long} (INT32, INT64, DATE, DECIMAL, BOOLEAN as 0/1, TIMESTAMP).
   */
  public boolean isIntegral() {
    return kind != Kind.FLOAT64 && kind != Kind.STRING;
  }

  /** Whether this is a number: INT32, INT64, DECIMAL or FLOAT64. */
  public boolean isNumber() {
    return kind == Kind.INT32 || kind == Kind.INT64 || kind == Kind.DECIMAL || kind == Kind.FLOAT64;
  }

  /**
   * How wide a value of this type is in the vectors memwall writes: 0 for BOOLEAN (one bit), 4 for
   * INT32, DATE and STRING (a dictionary code), 8 for the rest.
   */
  public int valueBytes() {
    return switch (kind) {
      case BOOLEAN -> 0;
      case INT32, DATE, STRING -> 4;
      case INT64, DECIMAL, FLOAT64, TIMESTAMP -> 8;
    };
  }

  /** An Arrow field of this type; {@code dictionary} non-null only for dictionary-encoded STRING. */
  public Field toField(String name, boolean nullable, DictionaryEncoding dictionary) {
    if (dictionary != null && kind != Kind.STRING) {
      throw new IllegalArgumentException("only STRING columns can be dictionary-encoded, not " + this);
    }
    ArrowType arrowType = switch (kind) {
      case INT32 -> new ArrowType.Int(32, true);
      case INT64, DECIMAL -> new ArrowType.Int(64, true);
      case FLOAT64 -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case STRING -> dictionary != null ? dictionary.getIndexType() : ArrowType.Utf8.INSTANCE;
      case BOOLEAN -> ArrowType.Bool.INSTANCE;
      case TIMESTAMP -> new ArrowType.Timestamp(unit(), zone);
    };
    Map<String, String> metadata =
        kind == Kind.DECIMAL ? Map.of(SCALE_METADATA_KEY, Integer.toString(scale)) : null;
    return new Field(name, new FieldType(nullable, arrowType, dictionary, metadata), null);
  }

  /**
   * The logical type of an Arrow field as memwall reads it.
   *
   * @throws IllegalArgumentException in one line naming the field and its Arrow type when that type
   *     has no memwall equivalent
   */
  public static ColumnType of(Field field) {
    if (field.getDictionary() != null) {
      return STRING;
    }
    ArrowType type = field.getType();
    String column = "column '" + field.getName() + "'";
    return switch (type) {
      case ArrowType.Int i when i.getIsSigned() && i.getBitWidth() <= 32 -> INT32;
      case ArrowType.Int i when i.getIsSigned() -> {
        String scale = field.getMetadata().get(SCALE_METADATA_KEY);
        try {
          yield scale == null ? INT64 : decimal(Integer.parseInt(scale));
        } catch (IllegalArgumentException e) { // also NumberFormatException
          throw new IllegalArgumentException(column + " has the malformed decimal scale '" + scale + "' in its "
              + SCALE_METADATA_KEY + " metadata");
        }
      }
      case ArrowType.Int i -> throw new IllegalArgumentException(column + " has Arrow type " + type
          + "; memwall does not read unsigned integers (cast them to a signed type of twice the width)");
      case ArrowType.Decimal d when d.getBitWidth() == 128 && d.getScale() >= 0 && d.getScale() <= 18
          && d.getPrecision() <= MAX_ARROW_DECIMAL_PRECISION -> decimal(d.getScale());
      case ArrowType.Decimal d -> throw new IllegalArgumentException(column + " is " + describe(d)
          + "; memwall reads 128-bit decimals of scale 0 to 18 (and computes them exactly as scaled int64 values)");
      case ArrowType.FloatingPoint f when f.getPrecision() != FloatingPointPrecision.HALF -> FLOAT64;
      case ArrowType.Date d -> DATE;
      case ArrowType.Utf8 u -> STRING;
      case ArrowType.LargeUtf8 u -> STRING;
      case ArrowType.Bool b -> BOOLEAN;
      case ArrowType.Timestamp t -> {
        try {
          yield timestamp(t.getUnit(), t.getTimezone());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(column + " has Arrow type " + type + ": " + e.getMessage());
        }
      }
      default -> throw new IllegalArgumentException(column + " has Arrow type " + type + ", which memwall does not read");
    };
  }

  /** {@code decimal(30,2)}, or {@code decimal256(40,2)}: an Arrow decimal type as SQL writes it. */
  public static String describe(ArrowType.Decimal type) {
    return (type.getBitWidth() == 128 ? "decimal(" : "decimal" + type.getBitWidth() + "(") + type.getPrecision() + ","
        + type.getScale() + ")";
  }

  @Override
  public String toString() {
    return switch (kind) {
      case DECIMAL -> "DECIMAL(scale " + scale + ")";
      case TIMESTAMP -> "TIMESTAMP(" + unit() + (zone == null ? ")" : ", " + zone + ")");
      default -> kind.name();
    };
  }
}
