package dev.memwall.tpch.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.math.BigDecimal;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Scalar subquery values: each value type, NULL, no rows, and the bad shapes SQL rejects. */
@ExtendWith(LeakCheck.class)
class ScalarSubqueryTest {

  @Test
  void valuesBecomeLiteralsOfTheirType(EngineMemory memory) {
    try (Table decimal = table(memory, List.of("v"), List.of(ColumnType.decimal(4)), b -> b.appendLong(-123456789).endRow());
        Table dbl = table(memory, List.of("v"), List.of(ColumnType.FLOAT64), b -> b.appendDouble(2.5).endRow());
        Table integer = table(memory, List.of("v"), List.of(ColumnType.INT64), b -> b.appendLong(Long.MIN_VALUE).endRow())) {
      assertEquals(Expr.decimal(new BigDecimal("-12345.6789")), ScalarSubquery.value(decimal).orElseThrow());
      assertEquals(Expr.lit(2.5), ScalarSubquery.value(dbl).orElseThrow());
      assertEquals(Expr.lit(Long.MIN_VALUE), ScalarSubquery.value(integer).orElseThrow());
    }
  }

  @Test
  void nullAndNoRowsAreEmpty(EngineMemory memory) {
    try (Table nullValue = table(memory, List.of("v"), List.of(ColumnType.INT64), b -> b.appendNull().endRow());
        Table noRows = table(memory, List.of("v"), List.of(ColumnType.INT64), b -> {})) {
      assertTrue(ScalarSubquery.value(nullValue).isEmpty());
      assertTrue(ScalarSubquery.value(noRows).isEmpty());
    }
  }

  @Test
  void moreThanOneRowOrColumnIsRejected(EngineMemory memory) {
    try (Table twoRows = table(memory, List.of("v"), List.of(ColumnType.INT64), b -> {
          b.appendLong(1).endRow();
          b.appendLong(2).endRow();
        });
        Table twoColumns = table(memory, List.of("a", "b"), List.of(ColumnType.INT64, ColumnType.INT64),
            b -> b.appendLong(1).appendLong(2).endRow())) {
      assertTrue(assertThrows(IllegalStateException.class, () -> ScalarSubquery.value(twoRows)).getMessage()
          .contains("more than one row"));
      assertTrue(assertThrows(IllegalStateException.class, () -> ScalarSubquery.value(twoColumns)).getMessage()
          .contains("one column"));
    }
  }

  private static Table table(EngineMemory memory, List<String> names, List<ColumnType> types, Consumer<TableBuilder> rows) {
    try (TableBuilder builder = new TableBuilder(names, types, memory.arrow())) {
      rows.accept(builder);
      return builder.build();
    }
  }
}
