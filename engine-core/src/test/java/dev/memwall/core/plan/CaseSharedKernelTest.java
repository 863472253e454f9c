package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.caseWhen;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A column read both outside a CASE and inside one of its branches: the branch computes it on the
 * rows the branch takes only, which must not change what the reading outside sees (its nulls were
 * lost on the rows the branch did not take).
 */
@ExtendWith(LeakCheck.class)
class CaseSharedKernelTest {

  @Test
  void aColumnBesideACaseThatReadsItKeepsItsNulls(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("a", "amt", "d"),
        List.of(ColumnType.INT32, ColumnType.INT64, ColumnType.FLOAT64), memory.arrow())) {
      builder.appendNull().appendNull().appendNull().endRow();
      builder.appendLong(2).appendLong(150).appendDouble(1.5).endRow();
      builder.appendLong(-1).appendNull().appendNull().endRow();
      builder.appendLong(3).appendLong(40).appendDouble(-0.5).endRow();
      try (Table table = builder.build();
          Table result = Plan.scan(table).project(
              col("amt").as("amt"),
              caseWhen(col("a").gt(lit(0)), col("amt"), lit(0)).as("amt_if"),
              col("amt").add(caseWhen(col("a").gt(lit(0)), col("amt"), lit(0))).as("sum"),
              col("d").as("d"),
              caseWhen(col("a").gt(lit(0)), col("d"), lit(0.0)).as("d_if"))
              .execute(ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(
            Arrays.asList(null, "0", null, null, 0.0),
            Arrays.asList("150", "150", "300", 1.5, 1.5),
            Arrays.asList(null, "0", null, null, 0.0),
            Arrays.asList("40", "40", "80", -0.5, -0.5)), SpillTestData.rows(result));
      }
    }
  }
}
