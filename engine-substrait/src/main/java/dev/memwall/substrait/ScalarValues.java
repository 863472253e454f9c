package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DecimalColumn;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The values of an uncorrelated scalar subquery that has run, as literals: a plan with such a
 * subquery runs it first (a global aggregate is one row) and reads its value as a constant, so
 * that a comparison with it is a comparison with a literal over the outer rows, and no join with
 * its one row is made. Stateless.
 */
final class ScalarValues {
  private ScalarValues() {}

  /**
   * Each column of {@code table}'s single row as a literal named as the column; empty when the
   * table does not have exactly one row, or a value is null or of a type without a literal here
   * (BIGINT, DECIMAL, DATE and DOUBLE have one): the caller then joins the table's rows in
   * instead, which is right for any row count and for SQL's nulls. The table is only read.
   */
  static Optional<List<NamedExpr>> literals(Table table) {
    if (table.rowCount() != 1) {
      return Optional.empty();
    }
    Batch row = table.batches().stream().filter(batch -> batch.rowCount() > 0).findFirst().orElseThrow();
    List<NamedExpr> literals = new ArrayList<>();
    for (Column column : row.columns()) {
      if (column.isNull(0)) {
        return Optional.empty();
      }
      ColumnType.Kind kind = column.type().kind();
      Expr.Literal literal;
      if (kind == ColumnType.Kind.INT64 || kind == ColumnType.Kind.DATE
          || kind == ColumnType.Kind.DECIMAL && column instanceof DecimalColumn) {
        literal = new Expr.Literal(column.getLong(0), column.type());
      } else if (kind == ColumnType.Kind.FLOAT64) {
        literal = new Expr.Literal(column.getDouble(0), column.type());
      } else {
        return Optional.empty();
      }
      literals.add(literal.as(column.name()));
    }
    return Optional.of(literals);
  }
}
