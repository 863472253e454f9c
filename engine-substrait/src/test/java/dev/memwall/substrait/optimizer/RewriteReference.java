package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.TableRows;
import java.util.List;

/**
 * The reference the rewrite tests check against: a small table {@code (n INT64, d DECIMAL(2), s
 * STRING, t STRING)} with nulls in every column, and what memwall's own executor makes of an
 * expression over it, so that an expression and its rewrite can be compared row for row.
 */
final class RewriteReference {
  /** A row of the table; null is a null. */
  record Row(Long n, Long d, String s, String t) {}

  private RewriteReference() {}

  /** The table of {@code rows}; the caller closes it. */
  static Table table(EngineMemory memory, List<Row> rows) {
    try (TableBuilder builder = new TableBuilder(List.of("n", "d", "s", "t"),
        List.of(ColumnType.INT64, ColumnType.decimal(2), ColumnType.STRING, ColumnType.STRING), memory.arrow())) {
      for (Row row : rows) {
        builder.appendLongOrNull(row.n());
        builder.appendLongOrNull(row.d());
        builder.appendStringOrNull(row.s());
        builder.appendStringOrNull(row.t());
        builder.endRow();
      }
      return builder.build();
    }
  }

  /** The rows of {@code table} where {@code predicate} is true, in the table's order. */
  static List<List<Object>> filtered(EngineMemory memory, Table table, Expr predicate) {
    try (Table result = Plan.scan(table).filter(predicate).execute(new ExecutionContext(memory, 1))) {
      return TableRows.of(result);
    }
  }

  /** {@code value} computed over each row of {@code table}, with its type's name. */
  static List<List<Object>> computed(EngineMemory memory, Table table, Expr value) {
    try (Table result = Plan.scan(table).project(new NamedExpr(value, "v")).execute(new ExecutionContext(memory, 1))) {
      List<List<Object>> rows = new java.util.ArrayList<>(TableRows.of(result));
      rows.add(List.of(result.schema().getFields().getFirst().getType().toString()));
      return rows;
    }
  }
}
