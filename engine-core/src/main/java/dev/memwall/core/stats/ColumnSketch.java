package dev.memwall.core.stats;

import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.Table;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;

/**
 * What one pass over a column's values learns: its nulls, a {@link HyperLogLog} of its distinct
 * non-null values, for numbers and dates its smallest and largest value (as {@link Column#getLong}
 * gives them: unscaled decimals, days for dates; doubles as they are; NaN where none), and whether
 * every batch is dictionary-encoded with the size of its largest dictionary, whose size is then the
 * exact distinct count when the dictionary holds only values in use, as memwall's writers make it.
 * Sketches of parts of a table {@link #merge} into the sketch one pass over the whole table gives.
 *
 * <p>Values hashed into the sketch: longs as they are, doubles by their bits with {@code -0.0} as
 * {@code 0.0} (SQL has them equal), strings by {@code hashCode}, a dictionary's entries once per
 * dictionary. Cost: one read of each value (of each entry of an encoded column), a 4 KiB heap sketch,
 * nothing off-heap. Not thread-safe; the table must stay open during {@link #of}.
 */
public final class ColumnSketch {
  private long nulls;
  private boolean allEncoded;
  private long dictionary;
  private double min;
  private double max;
  private final HyperLogLog distinct;

  /**
   * A sketch as stored: {@code min} and {@code max} NaN where there is no range.
   *
   * @throws IllegalArgumentException for negative counts, a range with one end or with {@code min > max}
   */
  public ColumnSketch(long nulls, boolean allEncoded, long dictionary, double min, double max, HyperLogLog distinct) {
    if (nulls < 0 || dictionary < 0) {
      throw new IllegalArgumentException("null and dictionary counts are at least 0: " + nulls + ", " + dictionary);
    }
    if (Double.isNaN(min) != Double.isNaN(max) || min > max) {
      throw new IllegalArgumentException("a range is both ends, the lower first: [" + min + ", " + max + "]");
    }
    this.nulls = nulls;
    this.allEncoded = allEncoded;
    this.dictionary = dictionary;
    this.min = min;
    this.max = max;
    this.distinct = Objects.requireNonNull(distinct, "distinct");
  }

  /**
   * The sketch of column {@code index} of {@code table}.
   *
   * @throws IndexOutOfBoundsException when the table has no such column
   */
  public static ColumnSketch of(Table table, int index) {
    ColumnType type = ColumnType.of(table.schema().getFields().get(index));
    boolean ranged = type.isNumber() || type.kind() == ColumnType.Kind.DATE;
    HyperLogLog sketch = new HyperLogLog();
    long nulls = 0;
    long dictionary = 0;
    boolean allEncoded = true;
    Set<Object> sketched = Collections.newSetFromMap(new IdentityHashMap<>());
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (Batch batch : table.batches()) {
      Column column = batch.column(index);
      if (column instanceof DictionaryColumn encoded) {
        dictionary = Math.max(dictionary, encoded.dictionary().length());
        if (sketched.add(encoded.dictionary().arrow())) { // once per dictionary, in case other batches are plain
          for (int entry = 0; entry < encoded.dictionary().length(); entry++) {
            if (!encoded.dictionary().isNull(entry)) {
              sketch.add(encoded.dictionary().getObject(entry).hashCode());
            }
          }
        }
      } else {
        allEncoded = false;
      }
      for (int row = 0; row < column.length(); row++) {
        if (column.isNull(row)) {
          nulls++;
          continue;
        }
        if (column instanceof DictionaryColumn) {
          continue;
        }
        double value = switch (type.kind()) {
          case FLOAT64 -> column.getDouble(row);
          case STRING -> 0;
          default -> column.getLong(row);
        };
        long bits = switch (type.kind()) {
          case FLOAT64 -> Double.doubleToLongBits(value == 0 ? 0.0 : value); // -0.0 equals 0.0
          case STRING -> column.getObject(row).hashCode();
          default -> column.getLong(row);
        };
        sketch.add(bits);
        if (ranged && !Double.isNaN(value)) {
          min = Math.min(min, value);
          max = Math.max(max, value);
        }
      }
    }
    boolean hasRange = min <= max;
    return new ColumnSketch(nulls, allEncoded, dictionary, hasRange ? min : Double.NaN, hasRange ? max : Double.NaN,
        sketch);
  }

  /** Adds {@code other}'s column (another part of the same table) to this one. */
  public void merge(ColumnSketch other) {
    nulls += other.nulls;
    allEncoded &= other.allEncoded;
    dictionary = Math.max(dictionary, other.dictionary);
    if (other.hasRange()) {
      boolean ranged = hasRange();
      min = ranged ? Math.min(min, other.min) : other.min;
      max = ranged ? Math.max(max, other.max) : other.max;
    }
    distinct.merge(other.distinct);
  }

  /** The estimated distinct non-null values of a column of {@code rows} rows sketched here. */
  public double distinct(long rows) {
    return Math.min(allEncoded && dictionary > 0 ? dictionary : distinct.estimate(), rows - nulls);
  }

  /** The null values. */
  public long nulls() {
    return nulls;
  }

  /** Whether every batch seen was dictionary-encoded. */
  public boolean allEncoded() {
    return allEncoded;
  }

  /** The size of the largest dictionary seen; 0 when none. */
  public long dictionary() {
    return dictionary;
  }

  /** The smallest value, NaN when none is known. */
  public double min() {
    return min;
  }

  /** The largest value, NaN when none is known. */
  public double max() {
    return max;
  }

  /** Whether {@link #min} and {@link #max} are known. */
  public boolean hasRange() {
    return !Double.isNaN(min);
  }

  /** A copy of the distinct-value sketch. */
  public HyperLogLog sketch() {
    return HyperLogLog.of(distinct.registers());
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ColumnSketch o && o.nulls == nulls && o.allEncoded == allEncoded
        && o.dictionary == dictionary && Double.compare(o.min, min) == 0 && Double.compare(o.max, max) == 0
        && o.distinct.equals(distinct);
  }

  @Override
  public int hashCode() {
    return Objects.hash(nulls, allEncoded, dictionary, min, max, distinct);
  }

  @Override
  public String toString() {
    return "ColumnSketch[nulls=" + nulls + ", encoded=" + allEncoded + ", dictionary=" + dictionary + ", range=["
        + min + ", " + max + "], distinct~" + distinct.estimate() + "]";
  }
}
