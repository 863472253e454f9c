package dev.memwall.tpch.query;

import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Table;
import java.math.BigDecimal;
import java.util.Optional;

/**
 * The value of an uncorrelated scalar subquery, computed first and substituted into the outer
 * query as a constant: the single value of a one-column result table with at most one row.
 *
 * <p>Stateless. Bad input: more than one column, or more than one row (SQL's "more than one row
 * returned by a subquery used as an expression"), throws {@link IllegalStateException}. The table
 * is only read; the caller closes it.
 */
final class ScalarSubquery {
  private ScalarSubquery() {}

  /** The value as a literal; empty when it is SQL NULL, which is also the value of no rows. */
  static Optional<Expr.Literal> value(Table table) {
    if (table.schema().getFields().size() != 1) {
      throw new IllegalStateException("a scalar subquery must have one column, not " + table.schema().getFields());
    }
    Object value = null;
    long rows = 0;
    for (Batch batch : table.batches()) {
      for (int r = 0; r < batch.rowCount(); r++) {
        if (++rows > 1) {
          throw new IllegalStateException("a scalar subquery returned more than one row");
        }
        value = batch.column(0).getObject(r);
      }
    }
    return Optional.ofNullable(switch (value) {
      case null -> null;
      case BigDecimal decimal -> Expr.decimal(decimal);
      case Double number -> lit(number);
      case Long number -> lit(number);
      case Integer number -> lit(number.longValue());
      default -> throw new IllegalStateException("unsupported scalar subquery value " + value);
    });
  }

  /** A predicate that is never true: a comparison with a NULL scalar. */
  static Expr comparedWithNull() {
    return lit(0).eq(lit(1));
  }
}
