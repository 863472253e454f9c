package dev.memwall.core.operator;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.DoubleKernel;
import dev.memwall.core.expr.LongKernel;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.VarCharColumn;
import org.apache.arrow.vector.FieldVector;

/**
 * One grouping key of a {@link HashAggregator}: produces the key's component of each row's group
 * tuple as a long, and sets {@code nullBit} in the row's null mask where the key is null (SQL
 * groups nulls together).
 *
 * <p>Thread safety: none; one per aggregation worker.
 */
sealed interface GroupKey permits GroupKey.Integral, GroupKey.Doubles, GroupKey.Strings {
  /** Writes the key of each listed row {@code k} to {@code out[k]} (0 where null, with {@code nullBit} set). */
  void fill(Chunk chunk, int[] positions, int n, long[] out, long[] nullMask, long nullBit);

  /** An integral expression, grouped by value (decimals at their own scale). */
  record Integral(LongKernel kernel) implements GroupKey {
    @Override
    public void fill(Chunk chunk, int[] positions, int n, long[] out, long[] nullMask, long nullBit) {
      long[] values = kernel.evaluate(chunk);
      boolean anyNull = kernel.anyNull();
      boolean[] nulls = kernel.nulls();
      for (int i = 0; i < n; i++) {
        int k = positions[i];
        boolean isNull = anyNull && nulls[k];
        out[k] = isNull ? 0 : values[k];
        nullMask[k] |= isNull ? nullBit : 0;
      }
    }
  }

  /**
   * A FLOAT64 expression, grouped by the bits of its value after {@link #normalize}: -0.0 groups with
   * 0.0 and every NaN with every other NaN (as SQL engines group them, where IEEE 754 equality would
   * make each NaN a group of its own), and the group's key is that normalized value. Its loop stays apart
   * from {@link Integral}'s: one reads the kernel's doubles, the other its longs, per row.
   */
  record Doubles(DoubleKernel kernel) implements GroupKey {
    @Override
    public void fill(Chunk chunk, int[] positions, int n, long[] out, long[] nullMask, long nullBit) {
      double[] values = kernel.evaluate(chunk);
      boolean anyNull = kernel.anyNull();
      boolean[] nulls = kernel.nulls();
      for (int i = 0; i < n; i++) {
        int k = positions[i];
        boolean isNull = anyNull && nulls[k];
        out[k] = isNull ? 0 : normalize(values[k]);
        nullMask[k] |= isNull ? nullBit : 0;
      }
    }

    /** The bits {@code value} groups by: 0.0's for -0.0, {@link Double#NaN}'s for every NaN. */
    static long normalize(double value) {
      return value == 0.0 ? 0L : Double.doubleToLongBits(value); // doubleToLongBits collapses NaNs
    }
  }

  /**
   * A string column, grouped by interned id: a dictionary column is interned once per dictionary
   * entry that occurs (when it first does), a plain one once per row.
   */
  final class Strings implements GroupKey {
    final int columnIndex;
    private final StringIds strings;
    private FieldVector lastDictionary;
    private int[] idByCode;

    Strings(int columnIndex, StringIds strings) {
      this.columnIndex = columnIndex;
      this.strings = strings;
    }

    @Override
    public void fill(Chunk chunk, int[] positions, int n, long[] out, long[] nullMask, long nullBit) {
      Column column = chunk.batch().column(columnIndex);
      int start = chunk.start();
      boolean anyNull = column.hasNulls();
      DictionaryColumn codes = column instanceof DictionaryColumn d ? d : null;
      VarCharColumn values = codes != null ? codes.dictionary() : (VarCharColumn) column;
      int[] ids = codes != null ? idsOf(values) : null;
      for (int i = 0; i < n; i++) {
        int k = positions[i];
        int row = start + k;
        if (anyNull && column.isNull(row)) { // a null row's code or bytes are not to be read
          out[k] = 0;
          nullMask[k] |= nullBit;
        } else if (codes != null) {
          int code = codes.code(row);
          int id = ids[code];
          out[k] = id >= 0 ? id : intern(values, code);
        } else {
          out[k] = strings.id(values.bytes(), values.offset(row), values.byteLength(row));
        }
      }
    }

    /** The interned id of {@code dictionary}'s entry {@code code}. */
    int idOf(VarCharColumn dictionary, int code) {
      int id = idsOf(dictionary)[code];
      return id >= 0 ? id : intern(dictionary, code);
    }

    /** Ids by code of {@code dictionary}, -1 for codes not interned yet. */
    private int[] idsOf(VarCharColumn dictionary) {
      if (dictionary.arrow() != lastDictionary) {
        idByCode = new int[dictionary.length()];
        java.util.Arrays.fill(idByCode, -1);
        lastDictionary = dictionary.arrow();
      }
      return idByCode;
    }

    private int intern(VarCharColumn dictionary, int code) {
      int id = strings.id(dictionary.bytes(), dictionary.offset(code), dictionary.byteLength(code));
      idByCode[code] = id;
      return id;
    }
  }
}
