package dev.memwall.core.vector;

import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.arrow.vector.TimeStampVector;

/**
 * A column of Arrow timestamps in any unit, with or without a time zone
 * ({@link ColumnType.Kind#TIMESTAMP}): {@link #get} is the stored int64 count of the type's units
 * since 1970-01-01T00:00 (negative before), so kernels read it as any other 8-byte integer column.
 * See {@link Column} for the contract.
 */
public final class TimestampColumn extends Int64Column {
  private final long unitsPerSecond;

  public TimestampColumn(TimeStampVector vector) {
    super(vector, ColumnType.of(vector.getField()));
    this.unitsPerSecond = pow10(type().scale());
  }

  /** A view with its parts known (see {@link Column#Column(org.apache.arrow.vector.FieldVector, ColumnType, int, MemorySegment)}). */
  TimestampColumn(TimeStampVector vector, ColumnType type, int length, MemorySegment validity, MemorySegment data) {
    super(vector, type, length, validity, data);
    this.unitsPerSecond = pow10(type.scale());
  }

  /** The instant of an int64 timestamp of {@code type} (for one without a zone: as if in UTC). */
  public static Instant instant(long value, ColumnType type) {
    long perSecond = pow10(type.scale());
    return Instant.ofEpochSecond(Math.floorDiv(value, perSecond), Math.floorMod(value, perSecond) * (1_000_000_000L / perSecond));
  }

  /**
   * The value at {@code row} for display and tests: a {@link LocalDateTime} for a timestamp without
   * a zone, an {@link Instant} for one with a zone; null for a null row.
   */
  @Override
  public Object getObject(int row) {
    if (isNull(row)) {
      return null;
    }
    Instant instant = instant(get(row), type());
    return type().zone() == null ? LocalDateTime.ofInstant(instant, ZoneOffset.UTC) : instant;
  }

  /** Units of this column in a second: 1, 1,000, 1,000,000 or 1,000,000,000. */
  public long unitsPerSecond() {
    return unitsPerSecond;
  }

  private static long pow10(int digits) {
    long result = 1;
    for (int i = 0; i < digits; i++) {
      result *= 10;
    }
    return result;
  }
}
