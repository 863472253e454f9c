package dev.memwall.core.operator;

import dev.memwall.core.expr.Chunk;
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
sealed interface GroupKey permits GroupKey.Integral, GroupKey.Strings {
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
   * A string column, grouped by interned id: a dictionary column is interned once per dictionary
   * entry, a plain one once per row.
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
      if (column instanceof DictionaryColumn codes) {
        int[] ids = idsOf(codes.dictionary());
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          out[k] = ids[codes.code(start + k)];
        }
      } else {
        VarCharColumn values = (VarCharColumn) column;
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          int row = start + k;
          out[k] = strings.id(values.bytes(), values.offset(row), values.byteLength(row));
        }
      }
      if (column.hasNulls()) {
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          if (column.isNull(start + k)) {
            out[k] = 0;
            nullMask[k] |= nullBit;
          }
        }
      }
    }

    int[] idsOf(VarCharColumn dictionary) {
      if (dictionary.arrow() != lastDictionary) {
        int[] ids = new int[dictionary.length()];
        for (int code = 0; code < ids.length; code++) {
          ids[code] = strings.id(dictionary.bytes(), dictionary.offset(code), dictionary.byteLength(code));
        }
        idByCode = ids;
        lastDictionary = dictionary.arrow();
      }
      return idByCode;
    }
  }
}
