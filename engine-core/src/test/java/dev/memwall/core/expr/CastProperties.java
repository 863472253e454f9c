package dev.memwall.core.expr;

import static dev.memwall.core.expr.Expr.cast;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TimestampColumn;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@link Expr#cast} against {@link BigDecimal}, {@code long} and {@code java.time} references:
 * integers and decimals widen exactly and narrow rounding half away from zero, numbers become the
 * nearest double, dates and timestamps convert by units and zones (wall-clock and instant
 * semantics, daylight-saving gaps and overlaps included); a cast whose result does not fit fails
 * the query with an {@link ArithmeticException} naming it (and leaks nothing), and a cast memwall
 * does not do is refused before anything runs.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class CastProperties {
  private static final String[] ZONES = {null, "UTC", "+05:30", "America/New_York", "Australia/Lord_Howe"};
  private static final TimeUnit[] UNITS = TimeUnit.values();

  /** The input columns: i32, i64, d (DECIMAL(s)), w (decimal(38,s2)), flag, day, ts (TIMESTAMP(u, z)). */
  private record Input(int decimalScale, int wideScale, ColumnType timestamp, List<Object[]> rows) {
    Schema schema() {
      return new Schema(List.of(ColumnType.INT32.toField("i32", true, null), ColumnType.INT64.toField("i64", true, null),
          ColumnType.decimal(decimalScale).toField("d", true, null),
          new Field("w", FieldType.nullable(new ArrowType.Decimal(38, wideScale, 128)), null),
          ColumnType.BOOLEAN.toField("flag", true, null), ColumnType.DATE.toField("day", true, null),
          timestamp.toField("ts", true, null)));
    }
  }

  @Property(tries = 120)
  void castsAgreeWithExactReferences(@ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    Input input = input(random);
    try (VectorSchemaRoot root = root(input, memory); Table table = Table.borrow(input.schema(), List.of(root), null)) {
      Check check = new Check(table, new ExecutionContext(memory, 1), input);
      int t = random.nextInt(19);
      ColumnType decimalT = ColumnType.decimal(t);
      check.cast(col("i32").cast(ColumnType.INT64), 0, v -> (long) (Integer) v);
      check.cast(cast(col("i64"), decimalT), 1, v -> unscaled(new BigDecimal((Long) v).setScale(t), "64-bit"));
      check.cast(cast(col("d"), decimalT), 2,
          v -> unscaled(decimal(v, input.decimalScale()).setScale(t, RoundingMode.HALF_UP), "64-bit"));
      check.cast(cast(col("d"), ColumnType.INT64), 2,
          v -> unscaled(decimal(v, input.decimalScale()).setScale(0, RoundingMode.HALF_UP), "64-bit"));
      check.cast(cast(col("d"), ColumnType.INT32), 2,
          v -> int32(decimal(v, input.decimalScale()).setScale(0, RoundingMode.HALF_UP)));
      check.cast(cast(col("i64"), ColumnType.INT32), 1, v -> int32(new BigDecimal((Long) v)));
      check.cast(cast(col("w"), decimalT), 3,
          v -> unscaled(((BigDecimal) v).setScale(t, RoundingMode.HALF_UP), "64-bit"));
      check.cast(cast(col("d"), ColumnType.FLOAT64), 2, v -> decimal(v, input.decimalScale()).doubleValue());
      check.cast(cast(col("i64"), ColumnType.FLOAT64), 1, v -> (double) (Long) v);
      check.cast(cast(col("i32"), ColumnType.FLOAT64), 0, v -> (double) (Integer) v);
      check.cast(cast(col("flag"), ColumnType.INT32), 4, v -> (Boolean) v ? 1L : 0L);
      ColumnType target = ColumnType.timestamp(UNITS[random.nextInt(UNITS.length)], ZONES[random.nextInt(ZONES.length)]);
      check.cast(cast(col("day"), target), 5, v -> units(midnight((Long) v, target.zoneId()), target));
      check.cast(cast(col("ts"), ColumnType.DATE), 6, v -> day((Long) v, input.timestamp()));
      check.cast(cast(col("ts"), target), 6, v -> units(convert((Long) v, input.timestamp(), target), target));
      check.cast(cast(cast(col("ts"), target), input.timestamp()), 6, null); // computes or fails cleanly
    }
  }

  /** Casts over one table of {@link Input}'s rows. */
  private record Check(Table table, ExecutionContext context, Input input) {
    /**
     * Projects {@code cast} over the table and compares every row with {@code reference} of input
     * column {@code column}'s value as written (null stays null); when the reference throws
     * {@link ArithmeticException} for any non-null row, the query must fail naming the cast. A null
     * reference only runs the cast (it computes or fails naming a cast).
     */
    void cast(Expr cast, int column, Function<Object, Object> reference) {
      Plan plan = Plan.scan(table).project(cast.as("x"));
      if (reference == null) {
        try (Table ignored = plan.execute(context)) {
          return;
        } catch (ArithmeticException e) {
          assertTrue(e.getMessage().startsWith("CAST("), e.getMessage());
          return;
        }
      }
      List<Object> expected = new ArrayList<>();
      try {
        for (Object[] row : input.rows()) {
          expected.add(row[column] == null ? null : reference.apply(row[column]));
        }
      } catch (ArithmeticException overflow) {
        var e = assertThrows(ArithmeticException.class, () -> plan.execute(context).close(), cast.toString());
        assertTrue(e.getMessage().startsWith(Casts.describe((Expr.Cast) cast)) && !e.getMessage().contains("\n"),
            e.getMessage());
        return;
      }
      List<Object> actual = new ArrayList<>();
      try (Table result = plan.execute(context)) {
        for (Batch batch : result.batches()) {
          for (int r = 0; r < batch.rowCount(); r++) {
            actual.add(batch.column(0).isNull(r) ? null : batch.column(0).type().kind() == ColumnType.Kind.FLOAT64
                ? (Object) batch.column(0).getDouble(r) : (Object) batch.column(0).getLong(r));
          }
        }
      }
      assertEquals(expected, actual, cast.toString());
    }
  }

  private static BigDecimal decimal(Object unscaled, int scale) {
    return BigDecimal.valueOf((Long) unscaled, scale);
  }

  private static long unscaled(BigDecimal value, String what) {
    return value.unscaledValue().longValueExact(); // ArithmeticException beyond 64 bits
  }

  private static long int32(BigDecimal value) {
    return value.intValueExact();
  }

  /** Midnight of {@code day} in {@code zone} (as UTC when none). */
  private static Instant midnight(long day, ZoneId zone) {
    LocalDateTime wall = LocalDate.ofEpochDay(day).atStartOfDay();
    return zone == null ? wall.toInstant(ZoneOffset.UTC) : ZonedDateTime.ofLocal(wall, zone, null).toInstant();
  }

  /** The count of {@code type}'s units at {@code instant}, flooring. */
  private static long units(Instant instant, ColumnType type) {
    long perSecond = Binder.pow10(type.scale());
    return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), perSecond), instant.getNano() / (1_000_000_000L / perSecond));
  }

  /** The instant a stored count of {@code type}'s units stands for (its wall clock read as UTC when unzoned). */
  private static Instant instant(long value, ColumnType type) {
    return TimestampColumn.instant(value, type);
  }

  private static long day(long value, ColumnType type) {
    Instant instant = instant(value, type);
    return (type.zoneId() == null ? instant.atOffset(ZoneOffset.UTC).toLocalDate()
        : instant.atZone(type.zoneId()).toLocalDate()).toEpochDay();
  }

  /** {@code value} of {@code from} as an instant (or a wall clock as UTC) in {@code to}'s terms. */
  private static Instant convert(long value, ColumnType from, ColumnType to) {
    Instant instant = instant(value, from);
    if (from.zoneId() != null && to.zoneId() == null) {
      return LocalDateTime.ofInstant(instant, from.zoneId()).toInstant(ZoneOffset.UTC);
    }
    if (from.zoneId() == null && to.zoneId() != null) {
      return ZonedDateTime.ofLocal(LocalDateTime.ofInstant(instant, ZoneOffset.UTC), to.zoneId(), null).toInstant();
    }
    return instant;
  }

  @Example
  void castsMemwallDoesNotDoAreRefusedBeforeAnythingRuns(EngineMemory memory) {
    Schema schema = new Schema(List.of(ColumnType.STRING.toField("s", true, null),
        ColumnType.FLOAT64.toField("f", true, null), ColumnType.DATE.toField("day", true, null),
        ColumnType.INT64.toField("i", true, null), ColumnType.timestamp(TimeUnit.SECOND, null).toField("ts", true, null),
        ColumnType.BOOLEAN.toField("flag", true, null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow());
        Table table = Table.borrow(schema, List.of(root), null)) {
      root.setRowCount(0);
      for (Expr refused : List.of(cast(col("s"), ColumnType.INT64), cast(col("f"), ColumnType.decimal(2)),
          cast(col("day"), ColumnType.INT32), cast(col("i"), ColumnType.BOOLEAN), cast(col("ts"), ColumnType.INT64),
          cast(col("flag"), ColumnType.FLOAT64), cast(col("i"), ColumnType.DATE), cast(col("i"), ColumnType.STRING))) {
        Plan plan = Plan.scan(table).project(refused.as("x"));
        var e = assertThrows(IllegalArgumentException.class, plan::schema);
        assertTrue(e.getMessage().startsWith("cannot " + Casts.describe((Expr.Cast) refused)), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        assertEquals(e.getMessage(),
            assertThrows(IllegalArgumentException.class, () -> plan.execute(new ExecutionContext(memory, 1))).getMessage());
      }
    }
  }

  @Example
  void projectedCastsResolveByName(EngineMemory memory) {
    Schema schema = new Schema(List.of(ColumnType.decimal(2).toField("price", true, null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow())) {
      BigIntVector prices = (BigIntVector) root.getVector(0);
      prices.allocateNew(4);
      long[] cents = {-250, -249, 249, 250};
      for (int i = 0; i < cents.length; i++) {
        prices.set(i, cents[i]);
      }
      root.setRowCount(cents.length);
      try (Table table = Table.borrow(schema, List.of(root), null); Table result = Plan.scan(table).project(col("price").cast(ColumnType.INT64).as("whole"),
              col("price").cast(ColumnType.FLOAT64).as("approx"))
          .filter(col("whole").ne(lit(2))).project(col("whole").as("whole"), col("approx").as("approx"))
          .execute(new ExecutionContext(memory, 1))) {
        Batch batch = result.batches().getFirst();
        assertEquals(3, batch.rowCount());
        assertEquals(List.of(-3L, -2L, 3L), Arrays.asList(batch.column(0).getObject(0), batch.column(0).getObject(1),
            batch.column(0).getObject(2)));
        assertEquals(2.5, batch.column(1).getDouble(2));
      }
    }
  }

  private static Input input(Random random) {
    int scale = random.nextInt(19);
    int wideScale = random.nextInt(19);
    ColumnType timestamp = ColumnType.timestamp(UNITS[random.nextInt(UNITS.length)], ZONES[random.nextInt(ZONES.length)]);
    boolean small = random.nextBoolean(); // then most casts fit; else overflow is likely
    List<Object[]> rows = new ArrayList<>();
    int count = random.nextInt(200);
    for (int i = 0; i < count; i++) {
      long big = random.nextInt(10) == 0 ? (random.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE) : random.nextLong();
      long any = small ? random.nextLong(-1_000_000_000L, 1_000_000_000L) : big;
      long tsRange = switch (timestamp.unit()) {
        case SECOND -> 100_000_000_000L;
        case MILLISECOND -> 100_000_000_000_000L;
        case MICROSECOND -> 100_000_000_000_000_000L;
        case NANOSECOND -> Long.MAX_VALUE;
      };
      rows.add(new Object[] {
          nullOr(random, random.nextInt(8) == 0 ? (random.nextBoolean() ? Integer.MIN_VALUE : Integer.MAX_VALUE)
              : random.nextInt()),
          nullOr(random, any),
          nullOr(random, random.nextBoolean() ? any : random.nextLong(-10_000, 10_000) * 5), // ties at .5 too
          nullOr(random, BigDecimal.valueOf(random.nextBoolean() ? any : random.nextLong(-1000, 1000) * 5, wideScale)),
          nullOr(random, random.nextBoolean()),
          nullOr(random, (long) random.nextInt(-120_000, 120_000)),
          nullOr(random, small ? random.nextLong(-tsRange / 100_000, tsRange / 100_000) : random.nextLong(-tsRange, tsRange))});
    }
    return new Input(scale, wideScale, timestamp, rows);
  }

  private static <T> T nullOr(Random random, T value) {
    return random.nextInt(10) == 0 ? null : value;
  }

  private static VectorSchemaRoot root(Input input, EngineMemory memory) {
    VectorSchemaRoot root = VectorSchemaRoot.create(input.schema(), memory.arrow());
    try {
      root.allocateNew();
      for (int i = 0; i < input.rows().size(); i++) {
        Object[] row = input.rows().get(i);
        for (int c = 0; c < row.length; c++) {
          var vector = (BaseFixedWidthVector) root.getVector(c);
          if (row[c] == null) {
            vector.setNull(i);
            continue;
          }
          switch (vector) {
            case IntVector v -> v.setSafe(i, (Integer) row[c]);
            case BigIntVector v -> v.setSafe(i, (Long) row[c]);
            case DecimalVector v -> v.setSafe(i, (BigDecimal) row[c]);
            case BitVector v -> v.setSafe(i, (Boolean) row[c] ? 1 : 0);
            case DateDayVector v -> v.setSafe(i, Math.toIntExact((Long) row[c]));
            case TimeStampVector v -> v.setSafe(i, (Long) row[c]);
            default -> throw new AssertionError(vector);
          }
        }
      }
      root.setRowCount(input.rows().size());
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }
}
