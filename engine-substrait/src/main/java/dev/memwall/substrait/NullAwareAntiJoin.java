package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.logical.Names;
import java.util.List;

/**
 * {@code needle NOT IN (subquery)} over an uncorrelated one-column subquery, with SQL's nulls. A
 * row passes when the subquery is empty, or when its needle is not null, the subquery yields no
 * null and no value equal to the needle; otherwise the predicate is false or null and the row is
 * dropped. A hash anti join alone keeps a row whose needle is null and ignores the subquery's nulls
 * (it is {@code NOT EXISTS}), so the general form crosses the anti join's rows with the subquery's
 * row count and non-null count (one row) and filters on them. Where both sides are declared not
 * nullable (by their SQL types, or by the keys the catalog declares: {@link DeclaredNotNull}) the
 * two predicates agree and the anti join alone is the plan.
 *
 * <p>The general form reads the subquery twice (for the anti join's hash table and for the counts),
 * as two conversions with names of their own. Stateless; the relations built hold no memory.
 */
final class NullAwareAntiJoin {
  private NullAwareAntiJoin() {}

  /**
   * The rows of {@code rel} for which {@code needle NOT IN (subquery)} is true.
   *
   * @param haystack the subquery, its one column of a type the hash join keys on with the needle's
   * @param counted a second conversion of the same subquery (fresh names), read for its counts; not
   *     read when neither side is nullable
   * @param nullable whether the needle or the subquery's column may be null, as Substrait declares them
   */
  static LogicalRel notIn(LogicalRel rel, String needle, RelConverter.Converted haystack,
      RelConverter.Converted counted, boolean nullable, Names names) {
    LogicalRel anti = new LogicalRel.Join(JoinKind.ANTI, rel, haystack.rel(), List.of(needle), haystack.names());
    if (!nullable) {
      return anti;
    }
    String rows = names.fresh("notin$rows");
    String values = names.fresh("notin$values");
    LogicalRel counts = new LogicalRel.Aggregation(counted.rel(), List.of(),
        List.of(Aggregate.countStar(rows), Aggregate.count(Expr.col(counted.names().getFirst()), values)));
    Expr empty = Expr.col(rows).eq(Expr.lit(0L));
    Expr noNulls = Expr.and(Expr.col(values).eq(Expr.col(rows)), Expr.not(Expr.isNull(Expr.col(needle))));
    return new LogicalRel.Filter(new LogicalRel.Cross(anti, counts), Expr.or(empty, noNulls));
  }
}
