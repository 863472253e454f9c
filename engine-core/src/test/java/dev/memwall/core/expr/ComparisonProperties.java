package dev.memwall.core.expr;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.expr.Expr.ComparisonOp;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Comparisons on decimals of different scales against {@link BigDecimal}, including the
 * constant-folded range filters, and the branch-free range test against unsigned comparison.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class ComparisonProperties {

  @Property(tries = 300)
  void decimalColumnAgainstConstantOfAnyScale(
      @ForAll @Size(max = 40) List<@LongRange(min = -100_000, max = 100_000) Long> unscaled,
      @ForAll @LongRange(min = -100_000, max = 100_000) long constant,
      @ForAll @IntRange(min = 0, max = 4) int constantScale,
      @ForAll ComparisonOp op, @ForAll boolean constantOnLeft, EngineMemory memory) {
    Expr.Literal literal = new Expr.Literal(constant, constantScale == 0 ? ColumnType.INT64 : ColumnType.decimal(constantScale));
    Expr predicate = constantOnLeft ? new Expr.Comparison(op, literal, col("x")) : new Expr.Comparison(op, col("x"), literal);
    List<Long> expected = new ArrayList<>();
    BigDecimal c = BigDecimal.valueOf(constant, constantScale);
    for (long v : unscaled) {
      int cmp = BigDecimal.valueOf(v, 2).compareTo(c);
      if (constantOnLeft) {
        cmp = -cmp;
      }
      if (FilterKernels.accepts(op, cmp)) {
        expected.add(v);
      }
    }
    assertEquals(expected, filterColumn(memory, ColumnType.decimal(2), unscaled, predicate));
  }

  @Property(tries = 2000)
  void branchFreeRangeTestAgreesWithUnsignedComparison(@ForAll long offset, @ForAll long width) {
    assertEquals(Long.compareUnsigned(offset, width) <= 0 ? 1 : 0, FilterKernels.inRange(offset, width));
    assertEquals(1, FilterKernels.inRange(width, width));
    assertEquals(1, FilterKernels.inRange(0, width));
  }

  @Property(tries = 200)
  void columnAgainstColumnAlignsScales(
      @ForAll @Size(max = 30) List<@LongRange(min = -1000, max = 1000) Long> values, @ForAll ComparisonOp op,
      EngineMemory memory) {
    // x at scale 2 against x * 10 at scale 3: equal values, so only EQ/LE/GE hold.
    Expr predicate = new Expr.Comparison(op, col("x"), col("x").mul(Expr.decimal("1.0")));
    List<Long> expected = FilterKernels.accepts(op, 0) ? values : List.of();
    assertEquals(expected, filterColumn(memory, ColumnType.decimal(2), values, predicate));
  }

  /**
   * Column-versus-column comparisons of INT32 or DATE columns (the branch-free kernel) against
   * Java's comparison under SQL's three-valued logic: nulls on either side satisfy neither the
   * comparison nor its negation; values span the whole int range, so differences exceed int.
   */
  @Property(tries = 300)
  void int32ColumnsComparedWithEachOther(@ForAll @Size(max = 60) List<@IntRange(min = -3, max = 3) Integer> steps,
      @ForAll long seed, @ForAll ComparisonOp op, @ForAll boolean negated, @ForAll boolean dates, EngineMemory memory) {
    java.util.Random random = new java.util.Random(seed);
    int[] limits = {Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, 1};
    List<Integer> a = new ArrayList<>();
    List<Integer> b = new ArrayList<>();
    for (int step : steps) {
      Integer x = random.nextInt(10) == 0 ? null : dates ? random.nextInt(20_000) : limits[random.nextInt(limits.length)];
      Integer y = random.nextInt(10) == 0 ? null : x == null || random.nextBoolean() ? random.nextInt(20_000) - 10_000
          : (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, (long) x + step));
      a.add(x);
      b.add(y);
    }
    ColumnType type = dates ? ColumnType.DATE : ColumnType.INT32;
    Expr comparison = new Expr.Comparison(op, col("a"), col("b"));
    Expr predicate = negated ? Expr.not(comparison) : comparison;
    List<Long> expected = new ArrayList<>();
    for (int row = 0; row < a.size(); row++) {
      if (a.get(row) != null && b.get(row) != null
          && FilterKernels.accepts(op, Integer.compare(a.get(row), b.get(row))) != negated) {
        expected.add((long) row);
      }
    }
    try (TableBuilder builder = new TableBuilder(List.of("a", "b", "row"), List.of(type, type, ColumnType.INT64),
        memory.arrow())) {
      for (int row = 0; row < a.size(); row++) {
        for (Integer value : java.util.Arrays.asList(a.get(row), b.get(row))) {
          if (value == null) {
            builder.appendNull();
          } else {
            builder.appendLong(value);
          }
        }
        builder.appendLong(row).endRow();
      }
      try (Table table = builder.build();
          Table result = Plan.scan(table).filter(predicate).project(col("row").as("row"))
              .execute(ExecutionContext.singleThreaded(memory))) {
        List<Long> kept = new ArrayList<>();
        for (Batch batch : result.batches()) {
          for (int r = 0; r < batch.rowCount(); r++) {
            kept.add(batch.column(0).getLong(r));
          }
        }
        assertEquals(expected, kept, predicate.toString());
      }
    }
  }

  static List<Long> filterColumn(EngineMemory memory, ColumnType type, List<Long> values, Expr predicate) {
    try (Table table = table(memory, type, values);
        Table result = Plan.scan(table).filter(predicate).execute(ExecutionContext.singleThreaded(memory))) {
      List<Long> kept = new ArrayList<>();
      for (Batch batch : result.batches()) {
        for (int row = 0; row < batch.rowCount(); row++) {
          kept.add(batch.column(0).getLong(row));
        }
      }
      return kept;
    }
  }

  static Table table(EngineMemory memory, ColumnType type, List<Long> values) {
    try (TableBuilder builder = new TableBuilder(List.of("x"), List.of(type), memory.arrow())) {
      for (long value : values) {
        builder.appendLong(value);
        builder.endRow();
      }
      return builder.build();
    }
  }
}
