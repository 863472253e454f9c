package dev.memwall.core.vector;

import java.lang.foreign.MemorySegment;
import java.time.LocalDate;
import org.apache.arrow.vector.DateDayVector;

/** A column of dates as days since 1970-01-01 (Arrow Date(DAY)); see {@link Column}. */
public final class DateColumn extends Int32Column {
  public DateColumn(DateDayVector vector) {
    super(vector, ColumnType.DATE);
  }

  /** A view with its parts known (see {@link Column#Column(org.apache.arrow.vector.FieldVector, ColumnType, int, MemorySegment)}). */
  DateColumn(DateDayVector vector, int length, MemorySegment validity,
      MemorySegment data) {
    super(vector, ColumnType.DATE, length, validity, data);
  }

  @Override
  public Object getObject(int row) {
    return isNull(row) ? null : LocalDate.ofEpochDay(get(row));
  }
}
