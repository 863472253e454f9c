package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * A total over the rows another aggregation groups is taken over its groups: TPC-H Q11's HAVING
 * compares each part's stock value with a fraction of the sum over all the rows the outer query
 * sums per part, and the sum of the per-part sums is that sum. An aggregation T whose input is,
 * once its column names are read as the other's, the input of an aggregation A (or a project of
 * A's project's outputs over the same input), whose keys are among A's and whose every measure is
 * a SUM, MIN or MAX that A computes too, becomes an aggregation over A's groups: the SUM of A's
 * sums, the MIN of its minimums, the MAX of its maximums, grouped by T's keys. A becomes a {@link
 * LogicalRel.Shared} relation (its result is materialized anyway) read by both.
 *
 * <p>The rows are the same: each input row is in exactly one group of A, whose key values
 * include T's, so T's groups are unions of A's, and a sum of sums, a minimum of minimums and a
 * maximum of maximums over them are the sum, minimum and maximum over their rows; a null value is
 * left out of A's measure as of T's, a group of nulls only gives a null its total leaves out, and
 * no rows give no groups, hence T's null (or no group where T has keys) alike. It is done only
 * where the measure's type is known and not floating point, whose sums round differently when
 * taken in another order; sums of integers and decimals are exact, and one too large for its type
 * fails A's own computation, which the plan runs anyway. Aggregations under a shared relation, or
 * one inside the other, are left alone. Stateless and thread-safe.
 */
public final class TotalFromGroups {
  private TotalFromGroups() {}

  /**
   * {@code rel} with each total of that kind taken over the groups; the same rows.
   *
   * @param types the type of a column, or null where it is not known (no total is taken over it)
   * @param ids gives each new shared relation its id
   */
  public static LogicalRel rewrite(LogicalRel rel, Function<String, ColumnType> types, IntSupplier ids) {
    LogicalRel at = rel;
    while (true) {
      List<LogicalRel.Aggregation> found = new ArrayList<>();
      collect(at, found);
      Map<LogicalRel, LogicalRel> replaced = first(found, types, ids);
      if (replaced.isEmpty()) {
        return at;
      }
      at = CommonAggregations.replace(at, replaced);
    }
  }

  /** The replacements of the first total among {@code found} that another's groups give; empty if none. */
  private static Map<LogicalRel, LogicalRel> first(List<LogicalRel.Aggregation> found,
      Function<String, ColumnType> types, IntSupplier ids) {
    for (LogicalRel.Aggregation total : found) {
      for (LogicalRel.Aggregation groups : found) {
        if (groups == total || groups.keys().size() <= total.keys().size() || CommonAggregations.contains(groups, total)
            || CommonAggregations.contains(total, groups)) {
          continue;
        }
        Map<String, String> names = new HashMap<>();
        if (!covers(groups.input(), total.input(), names)) {
          continue;
        }
        Optional<List<NamedExpr>> keys = keys(groups, total, names);
        Optional<List<Aggregate>> measures = measures(groups, total, names, types);
        if (keys.isPresent() && measures.isPresent()) {
          LogicalRel.Shared shared = new LogicalRel.Shared(ids.getAsInt(), groups);
          Map<LogicalRel, LogicalRel> replaced = new IdentityHashMap<>();
          replaced.put(groups, shared);
          replaced.put(total, new LogicalRel.Aggregation(shared, keys.get(), measures.get()));
          return replaced;
        }
      }
    }
    return Map.of();
  }

  /**
   * Whether {@code part} computes what {@code whole} does, or a project of {@code whole}'s
   * project's outputs over the same input; on success {@code names} maps {@code part}'s columns to
   * {@code whole}'s.
   */
  private static boolean covers(LogicalRel whole, LogicalRel part, Map<String, String> names) {
    if (!(whole instanceof LogicalRel.Project wholeProject && part instanceof LogicalRel.Project partProject)) {
      return CommonAggregations.same(whole, part, names);
    }
    if (!CommonAggregations.same(wholeProject.input(), partProject.input(), names)) {
      return false;
    }
    Map<String, String> outputs = new HashMap<>();
    for (NamedExpr output : partProject.outputs()) {
      Expr expr = Exprs.renamed(output.expr(), names);
      Optional<NamedExpr> match = wholeProject.outputs().stream().filter(o -> o.expr().equals(expr)).findFirst();
      if (match.isEmpty()) {
        return false;
      }
      outputs.put(output.name(), match.get().name());
    }
    names.putAll(outputs);
    return true;
  }

  /** {@code total}'s keys as columns of {@code groups}' keys, or empty where one is not among them. */
  private static Optional<List<NamedExpr>> keys(LogicalRel.Aggregation groups, LogicalRel.Aggregation total,
      Map<String, String> names) {
    List<NamedExpr> keys = new ArrayList<>();
    for (NamedExpr key : total.keys()) {
      Expr expr = Exprs.renamed(key.expr(), names);
      Optional<NamedExpr> match = groups.keys().stream().filter(k -> k.expr().equals(expr)).findFirst();
      if (match.isEmpty()) {
        return Optional.empty();
      }
      keys.add(Expr.col(match.get().name()).as(key.name()));
    }
    return Optional.of(keys);
  }

  /**
   * {@code total}'s measures over {@code groups}' measures, or empty where one is not a SUM, MIN or
   * MAX of a known type other than floating point that {@code groups} computes.
   */
  private static Optional<List<Aggregate>> measures(LogicalRel.Aggregation groups, LogicalRel.Aggregation total,
      Map<String, String> names, Function<String, ColumnType> types) {
    List<Aggregate> measures = new ArrayList<>();
    for (Aggregate measure : total.measures()) {
      if (measure.function() != Aggregate.Function.SUM && measure.function() != Aggregate.Function.MIN
          && measure.function() != Aggregate.Function.MAX) {
        return Optional.empty();
      }
      Expr argument = Exprs.renamed(measure.argument(), names);
      Optional<Aggregate> match = groups.measures().stream().filter(m -> m.function() == measure.function()
          && argument.equals(m.argument())).findFirst();
      ColumnType type = match.map(m -> types.apply(m.name())).orElse(null);
      if (type == null || type.kind() == ColumnType.Kind.FLOAT64) {
        return Optional.empty();
      }
      measures.add(new Aggregate(measure.function(), Expr.col(match.get().name()), measure.name()));
    }
    return Optional.of(measures);
  }

  /** The aggregations of {@code rel}, outside shared relations. */
  private static void collect(LogicalRel rel, List<LogicalRel.Aggregation> found) {
    if (rel instanceof LogicalRel.Aggregation a) {
      found.add(a);
    }
    if (!(rel instanceof LogicalRel.Shared)) {
      CommonAggregations.inputs(rel).forEach(input -> collect(input, found));
    }
  }
}
