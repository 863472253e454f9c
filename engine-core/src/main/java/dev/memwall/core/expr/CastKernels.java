package dev.memwall.core.expr;

import dev.memwall.core.vector.ColumnType;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneRules;

/**
 * The integral kernels of {@link Expr.Cast} (and of the year of a timestamp): each converts the
 * selected non-null values of one input kernel, exactly or with an {@link ArithmeticException}
 * naming the cast and the value, never wrapping. Values at null positions are not converted (they
 * hold whatever bits the input had, such as a wide decimal's that do not fit).
 */
final class CastKernels {
  private static final long SECONDS_PER_DAY = 86_400;

  private CastKernels() {}

  /** What a value of scale {@code from} is multiplied by to reach the finer scale {@code to}; 1 if {@code to} is not finer. */
  private static long scaleUp(ColumnType from, ColumnType to) {
    int shift = to.scale() - from.scale();
    return shift > 0 ? Binder.pow10(shift) : 1;
  }

  /** What a value of scale {@code from} is divided by to reach the coarser scale {@code to}; 1 if {@code to} is not coarser. */
  private static long scaleDown(ColumnType from, ColumnType to) {
    int shift = to.scale() - from.scale();
    return shift < 0 ? Binder.pow10(-shift) : 1;
  }

  /** A kernel of one input whose non-null values convert one at a time. */
  private abstract static class Unary extends LongKernel {
    final LongKernel input;
    /** The cast as written, for errors. */
    final String what;

    Unary(LongKernel input, ColumnType type, String what) {
      super(type);
      this.input = input;
      this.what = what;
    }

    @Override
    protected final void compute(Chunk chunk) {
      long[] in = input.evaluate(chunk);
      boolean[] inNulls = input.anyNull() ? input.nulls() : null;
      int selected = chunk.selected();
      for (int i = 0; i < selected; i++) {
        int k = chunk.position(i);
        values[k] = inNulls != null && inNulls[k] ? 0 : convert(in[k]);
      }
      unionNulls(chunk, input, null);
    }

    abstract long convert(long value);

    final ArithmeticException overflow(long value, String why) {
      return new ArithmeticException(what + " fails for the value " + value + " (as stored): " + why);
    }
  }

  /**
   * Integers, booleans (0 and 1) and decimals to an integer or a decimal of another scale: a wider
   * scale multiplies exactly (overflowing int64 is an error), a narrower one divides and rounds half
   * away from zero (BigDecimal's HALF_UP), and an INT32 result must fit 32 bits.
   */
  static final class Rescale extends Unary {
    private final long multiplier;
    private final long limit;
    private final long divisor;
    private final boolean toInt32;

    Rescale(LongKernel input, ColumnType from, ColumnType to, String what) {
      super(input, to, what);
      this.multiplier = scaleUp(from, to);
      this.limit = Long.MAX_VALUE / multiplier;
      this.divisor = scaleDown(from, to);
      this.toInt32 = to.kind() == ColumnType.Kind.INT32;
    }

    @Override
    long convert(long value) {
      long result;
      if (multiplier != 1) {
        if (value > limit || value < -limit) {
          throw overflow(value, "the result does not fit a 64-bit " + (type().kind() == ColumnType.Kind.DECIMAL
              ? "unscaled decimal" : "integer"));
        }
        result = value * multiplier;
      } else if (divisor != 1) {
        result = roundHalfUp(value, divisor);
      } else {
        result = value;
      }
      if (toInt32 && result != (int) result) {
        throw overflow(value, "the result " + result + " does not fit INT32");
      }
      return result;
    }

    /** {@code value / divisor} rounded half away from zero. */
    static long roundHalfUp(long value, long divisor) {
      long quotient = value / divisor;
      long remainder = value % divisor;
      if (Math.abs(remainder) >= divisor - Math.abs(remainder)) { // |remainder| >= divisor / 2, exactly
        quotient += value < 0 ? -1 : 1;
      }
      return quotient;
    }
  }

  /** A DATE (days) to a TIMESTAMP: midnight of the day, in the target's zone when it has one. */
  static final class DateToTimestamp extends Unary {
    private final long perSecond;
    private final Zone zone;

    DateToTimestamp(LongKernel input, ColumnType to, String what) {
      super(input, to, what);
      this.perSecond = Binder.pow10(to.scale());
      this.zone = Zone.of(to.zoneId());
    }

    @Override
    long convert(long day) {
      try {
        long seconds = Math.multiplyExact(day, SECONDS_PER_DAY);
        if (zone != null) {
          seconds = Math.subtractExact(seconds, zone.offsetOfLocal(seconds));
        }
        return Math.multiplyExact(seconds, perSecond);
      } catch (ArithmeticException | java.time.DateTimeException e) {
        throw overflow(day, "the day is beyond what a 64-bit " + type() + " holds");
      }
    }
  }

  /**
   * A TIMESTAMP to a DATE: the day of its wall-clock time, which for a zoned timestamp is the day in
   * its zone; times before 1970 belong to the day that contains them (the division floors).
   */
  static final class TimestampToDate extends Unary {
    private final long perSecond;
    private final Zone zone;

    TimestampToDate(LongKernel input, ColumnType from, String what) {
      super(input, ColumnType.DATE, what);
      this.perSecond = Binder.pow10(from.scale());
      this.zone = Zone.of(from.zoneId());
    }

    @Override
    long convert(long value) {
      long seconds = Math.floorDiv(value, perSecond);
      long day = Math.floorDiv(seconds, SECONDS_PER_DAY);
      if (zone != null) { // the offset (within a day) moves the time of day, not the seconds: no overflow
        day += Math.floorDiv(Math.floorMod(seconds, SECONDS_PER_DAY) + zone.offsetOfInstant(seconds), SECONDS_PER_DAY);
      }
      if (day != (int) day) {
        throw overflow(value, "the day " + day + " is beyond the days (32 bits) a DATE holds");
      }
      return day;
    }
  }

  /**
   * A TIMESTAMP to one of another unit or zone. Between zoned timestamps the instant stays (only the
   * zone its fields are read in changes); from a zoned one to one without a zone the wall-clock time
   * in the source's zone is kept, and the other way round the wall-clock time is read in the
   * target's zone (a time a daylight-saving gap skips moves forward by the gap, one an overlap
   * repeats takes the earlier offset, as {@link ZonedDateTime#ofLocal} does). A finer unit multiplies
   * exactly (overflowing int64 is an error), a coarser one floors (towards the past).
   */
  static final class TimestampToTimestamp extends Unary {
    private final long fromPerSecond;
    private final long multiplier;
    private final long divisor;
    private final Zone toWallClock;
    private final Zone fromWallClock;

    TimestampToTimestamp(LongKernel input, ColumnType from, ColumnType to, String what) {
      super(input, to, what);
      this.fromPerSecond = Binder.pow10(from.scale());
      this.multiplier = scaleUp(from, to);
      this.divisor = scaleDown(from, to);
      boolean fromZoned = from.zone() != null;
      boolean toZoned = to.zone() != null;
      this.toWallClock = fromZoned && !toZoned ? Zone.of(from.zoneId()) : null;
      this.fromWallClock = !fromZoned && toZoned ? Zone.of(to.zoneId()) : null;
    }

    @Override
    long convert(long value) {
      try {
        long shifted = value;
        if (toWallClock != null) {
          long offset = toWallClock.offsetOfInstant(Math.floorDiv(value, fromPerSecond));
          shifted = Math.addExact(value, Math.multiplyExact(offset, fromPerSecond));
        } else if (fromWallClock != null) {
          long offset = fromWallClock.offsetOfLocal(Math.floorDiv(value, fromPerSecond));
          shifted = Math.subtractExact(value, Math.multiplyExact(offset, fromPerSecond));
        }
        return divisor != 1 ? Math.floorDiv(shifted, divisor) : Math.multiplyExact(shifted, multiplier);
      } catch (ArithmeticException | java.time.DateTimeException e) {
        throw overflow(value, "the result is beyond what a 64-bit " + type() + " holds");
      }
    }
  }

  /** The UTC offsets of one time zone, in seconds: fixed, or from its rules. */
  record Zone(ZoneId id, ZoneRules rules, long fixed) {
    /** The zone of {@code id}, or null for none. */
    static Zone of(ZoneId id) {
      if (id == null) {
        return null;
      }
      ZoneRules rules = id.getRules();
      return new Zone(id, rules, rules.isFixedOffset() ? rules.getOffset(java.time.Instant.EPOCH).getTotalSeconds()
          : Long.MIN_VALUE);
    }

    /**
     * Seconds beyond which the rules are not consulted (a hundred million years from 1970, well
     * inside java.time's range): the offsets there are those of the rules' last (or first) transition.
     */
    private static final long RULES_RANGE = 3_155_695_200_000_000L;

    /** The offset at the instant {@code epochSecond}. */
    long offsetOfInstant(long epochSecond) {
      if (fixed != Long.MIN_VALUE) {
        return fixed;
      }
      long clamped = Math.clamp(epochSecond, -RULES_RANGE, RULES_RANGE);
      return rules.getOffset(java.time.Instant.ofEpochSecond(clamped)).getTotalSeconds();
    }

    /** The offset of the wall-clock time {@code localSecond} (seconds since 1970-01-01T00:00 on the clock). */
    long offsetOfLocal(long localSecond) {
      if (fixed != Long.MIN_VALUE) {
        return fixed;
      }
      long clamped = Math.clamp(localSecond, -RULES_RANGE, RULES_RANGE);
      LocalDateTime local = LocalDateTime.ofEpochSecond(clamped, 0, ZoneOffset.UTC);
      return clamped - ZonedDateTime.ofLocal(local, id, null).toEpochSecond();
    }
  }
}
