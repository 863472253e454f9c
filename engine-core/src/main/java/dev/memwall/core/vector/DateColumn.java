package dev.memwall.core.vector;

import java.time.LocalDate;
import org.apache.arrow.vector.DateDayVector;

/** A column of dates as days since 1970-01-01 (Arrow Date(DAY)); see {@link Column}. */
public final class DateColumn extends Int32Column {
  public DateColumn(DateDayVector vector) {
    super(vector, ColumnType.DATE);
  }

  @Override
  public Object getObject(int row) {
    return isNull(row) ? null : LocalDate.ofEpochDay(get(row));
  }
}
