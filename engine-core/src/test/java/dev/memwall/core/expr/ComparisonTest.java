package dev.memwall.core.expr;

import static dev.memwall.core.expr.ComparisonProperties.filterColumn;
import static dev.memwall.core.expr.ComparisonProperties.table;
import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Range filters at the type limits, exact arithmetic, date arithmetic and type errors. */
@ExtendWith(LeakCheck.class)
class ComparisonTest {
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
  void dateArithmeticAndYearExtraction(EngineMemory memory) {
    long day1995 = java.time.LocalDate.parse("1995-06-30").toEpochDay();
    List<Long> days = List.of(day1995 - 1, day1995, day1995 + 1, day1995 + 200);
    // x + 1 day > 1995-06-30  <=>  x >= 1995-06-30
    assertEquals(List.of(day1995, day1995 + 1, day1995 + 200),
        filterColumn(memory, ColumnType.DATE, days, col("x").add(Expr.lit(1)).gt(Expr.date("1995-06-30"))));
    // x - 30 days <= 1995-06-01
    assertEquals(List.of(day1995 - 1, day1995, day1995 + 1),
        filterColumn(memory, ColumnType.DATE, days, col("x").sub(Expr.lit(30)).le(Expr.date("1995-06-01"))));
    assertEquals(List.of(day1995 + 200),
        filterColumn(memory, ColumnType.DATE, days, Expr.year(col("x")).eq(Expr.lit(1996))));
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

}
