package dev.memwall.core.expr;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr.ComparisonOp;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Comparisons and arithmetic on decimals of different scales against {@link BigDecimal}, including
 * the constant-folded range filters, values at the type limits, and type errors.
 */
@ExtendWith(LeakCheck.class)
class ComparisonProperties {

  @Property(tries = 300)
  void decimalColumnAgainstConstantOfAnyScale(
      @ForAll @Size(max = 40) List<@LongRange(min = -100_000, max = 100_000) Long> unscaled,
      @ForAll @LongRange(min = -100_000, max = 100_000) long constant,
      @ForAll @IntRange(min = 0, max = 4) int constantScale,
      @ForAll ComparisonOp op, @ForAll boolean constantOnLeft) {
    try (EngineMemory memory = EngineMemory.create("comparison")) {
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
  }

  @Property(tries = 200)
  void columnAgainstColumnAlignsScales(
      @ForAll @Size(max = 30) List<@LongRange(min = -1000, max = 1000) Long> values, @ForAll ComparisonOp op) {
    try (EngineMemory memory = EngineMemory.create("comparison")) {
      // x at scale 2 against x * 10 at scale 3: equal values, so only EQ/LE/GE hold.
      Expr predicate = new Expr.Comparison(op, col("x"), col("x").mul(Expr.decimal("1.0")));
      List<Long> expected = FilterKernels.accepts(op, 0) ? values : List.of();
      assertEquals(expected, filterColumn(memory, ColumnType.decimal(2), values, predicate));
    }
  }

  @Test
  void rangesAtTypeLimits(EngineMemory memory) {
    List<Long> values = List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, Long.MAX_VALUE - 1, Long.MAX_VALUE);
    assertEquals(List.of(Long.MIN_VALUE), filterColumn(memory, ColumnType.INT64, values, col("x").lt(Expr.lit(Long.MIN_VALUE + 1))));
    assertEquals(List.of(), filterColumn(memory, ColumnType.INT64, values, col("x").lt(Expr.lit(Long.MIN_VALUE))));
    assertEquals(List.of(), filterColumn(memory, ColumnType.INT64, values, col("x").gt(Expr.lit(Long.MAX_VALUE))));
    assertEquals(values, filterColumn(memory, ColumnType.INT64, values, col("x").ge(Expr.lit(Long.MIN_VALUE))));
    assertEquals(List.of(-1L, 0L, 1L), filterColumn(memory, ColumnType.INT64, values, col("x").between(Expr.lit(-1), Expr.lit(1))));
  }

  @Test
  void overflowIsAnErrorNotAWrongAnswer(EngineMemory memory) {
    try (Table table = table(memory, ColumnType.INT64, List.of(Long.MAX_VALUE, 2L))) {
      var plan = Plan.scan(table).aggregate(List.of(), Aggregate.sum(col("x").mul(Expr.lit(2)), "doubled"));
      assertThrows(ArithmeticException.class, () -> plan.execute(ExecutionContext.singleThreaded(memory)).close());
      var sum = Plan.scan(table).aggregate(List.of(), Aggregate.sum(col("x"), "total"));
      assertThrows(ArithmeticException.class, () -> sum.execute(ExecutionContext.singleThreaded(memory)).close());
    }
  }

  @Test
  void typeErrorsNameTheExpression(EngineMemory memory) {
    try (Table table = table(memory, ColumnType.DATE, List.of(1L))) {
      Binder binder = new Binder(table.schema());
      var unknown = assertThrows(IllegalArgumentException.class, () -> binder.bindFilter(col("nope").eq(Expr.lit(1))));
      assertTrue(unknown.getMessage().contains("nope"), unknown.getMessage());
      var mismatch = assertThrows(IllegalArgumentException.class, () -> binder.bindFilter(col("x").eq(Expr.lit(1))));
      assertTrue(mismatch.getMessage().contains("DATE"), mismatch.getMessage());
      assertThrows(IllegalArgumentException.class, () -> binder.bindFilter(col("x").like("1%")));
      assertThrows(IllegalArgumentException.class, () -> binder.bindLong(col("x").eq(Expr.date("1970-01-02"))));
    }
  }

  private static List<Long> filterColumn(EngineMemory memory, ColumnType type, List<Long> values, Expr predicate) {
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

  private static Table table(EngineMemory memory, ColumnType type, List<Long> values) {
    try (TableBuilder builder = new TableBuilder(List.of("x"), List.of(type), memory.arrow())) {
      for (long value : values) {
        builder.appendLong(value);
        builder.endRow();
      }
      return builder.build();
    }
  }
}
