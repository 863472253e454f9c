package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.Names;
import java.util.ArrayList;
import java.util.List;

/**
 * An aggregate whose measures are all over the DISTINCT values of one argument ({@code
 * count(DISTINCT ps_suppkey)} in TPC-H Q16) as two aggregations: the first groups by the keys and
 * the argument, which leaves each distinct value once per group, the second by the keys alone with
 * the measures over those values. A null argument forms a group of its own in the first and is
 * skipped by the measures in the second, as SQL skips it; a global aggregate of an empty input is
 * still one row. Measures over DISTINCT values of different arguments, or beside measures over all
 * values, would need a join of separate aggregations and are refused. Stateless.
 */
final class DistinctAggregation {
  private DistinctAggregation() {}

  /**
   * The two aggregations for {@code keys} and {@code measures} over {@code input}, where {@code
   * distinct[i]} says whether measure {@code i} is over DISTINCT values and at least one is.
   *
   * @throws UnsupportedPlanException when not every measure is over the DISTINCT values of one argument
   */
  static LogicalRel plan(LogicalRel input, List<NamedExpr> keys, List<Aggregate> measures, List<Boolean> distinct,
      Names names, String here) {
    Expr argument = measures.getFirst().argument();
    for (int i = 0; i < measures.size(); i++) {
      if (!distinct.get(i) || measures.get(i).argument() == null || !measures.get(i).argument().equals(argument)) {
        throw new UnsupportedPlanException(here, "aggregate functions over DISTINCT values beside others (only "
            + "measures that are all over the DISTINCT values of one argument)");
      }
    }
    String value = names.fresh("distinct");
    List<NamedExpr> firstKeys = new ArrayList<>(keys);
    firstKeys.add(argument.as(value));
    LogicalRel first = new LogicalRel.Aggregation(input, firstKeys, List.of());
    List<NamedExpr> secondKeys = keys.stream().map(key -> Expr.col(key.name()).as(key.name())).toList();
    List<Aggregate> secondMeasures = measures.stream()
        .map(m -> new Aggregate(m.function(), Expr.col(value), m.name())).toList();
    return new LogicalRel.Aggregation(first, secondKeys, secondMeasures);
  }
}
