package dev.memwall.core.vector;

import dev.memwall.core.memory.ArrowSegments;
import java.lang.foreign.MemorySegment;
import java.time.LocalDate;
import org.apache.arrow.vector.DateMilliVector;

/**
 * An Arrow Date(MILLISECOND) column (date64) read as {@link ColumnType.Kind#DATE}: days since
 * 1970-01-01, each value divided by 86,400,000 as it is read. The Arrow format asks date64 values
 * to be whole days; one that is not is refused where it is read, with an {@link ArithmeticException}
 * naming the column, the row and the value, rather than truncated to a day it does not equal. Null
 * rows are never checked. What memwall writes from it is Date(DAY). See {@link Column} for the
 * contract.
 */
public final class Date64Column extends Column {
  /** Milliseconds in a day. */
  public static final long MILLIS_PER_DAY = 86_400_000L;

  private final MemorySegment data;

  public Date64Column(DateMilliVector vector) {
    super(vector, ColumnType.DATE);
    this.data = ArrowSegments.of(vector.getDataBuffer());
  }

  /** The raw values, milliseconds since 1970-01-01, 8 bytes each. */
  public MemorySegment data() {
    return data;
  }

  /** The milliseconds at {@code row}, as stored. */
  public long millis(int row) {
    return data.getAtIndex(LONG, row);
  }

  /**
   * The day at {@code row} (0 at a null row, whose bits are not read as a date).
   *
   * @throws ArithmeticException naming the column when the value is not a whole day
   */
  @Override
  public long getLong(int row) {
    long millis = data.getAtIndex(LONG, row);
    if (millis % MILLIS_PER_DAY != 0) {
      if (isNull(row)) {
        return 0;
      }
      throw new ArithmeticException("column '" + name() + "' is date64 and row " + row + " holds " + millis
          + " ms, which is not a whole day; memwall reads date64 values as days (DATE) and does not truncate them");
    }
    return millis / MILLIS_PER_DAY;
  }

  @Override
  public Object getObject(int row) {
    return isNull(row) ? null : LocalDate.ofEpochDay(getLong(row));
  }
}
