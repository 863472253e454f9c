package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.expr.Substitution;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * A table's rows semi-joined with keys that are all among the keys of another semi join of the same
 * table's rows are taken from that other join's rows instead of from the table: TPC-H Q21's NOT
 * EXISTS reads the late lines of the candidate orders, the EXISTS the lines of the orders with a
 * late line of the nation's suppliers, and the candidates are among those orders, so the NOT EXISTS
 * filters the EXISTS's lines instead of reading lineitem a third time.
 *
 * <pre>
 * semi join on K2 = B2                         semi join on K2 = B2
 *   filter F2 (scan T)              =&gt;           filter F2 (rename (shared #n))
 *   S2 (whose B2 values are among S1's B1)       S2
 * ... semi join on K1 = B1 ...                 ... shared #n: semi join on K1 = B1 ...
 *       filter F1 (scan T)                                     filter F1 (scan T)
 *       S1                                                     S1
 * </pre>
 *
 * <p>It holds where K1 and K2 are the same columns of T, F1's conditions are all among F2's (both
 * possibly none), and every B2 value of S2 is a B1 value of S1: then a row of T that F2 keeps and
 * whose K2 is among S2's B2 passes F1 and has its K1 among S1's B1, so it is a row of the first
 * join. The containment is proven by where S2's key columns come from: through filters, sorts,
 * limits, shared relations, semi and anti joins (their probe side), inner joins and cross products
 * (either side), projects that pass a column on and the grouping keys of aggregations, each of which
 * keeps only values of its input, down to a node equal to S1 where they are S1's B1. A null key
 * matches nothing in either join, a repeated one keeps a row once in both. The first join becomes a
 * {@link LogicalRel.Shared} relation, and the second reads it renamed to the table's columns it read,
 * F2 applied again; the first may not hold the second (the second would read itself).
 *
 * <p>It applies where the first join is estimated to keep at most half of T's rows, since holding a
 * large part of T costs more than reading T again. Stateless and thread-safe when the estimator is.
 */
public final class NestedSemiJoins {
  private NestedSemiJoins() {}

  /**
   * {@code rel} with each such semi join reading the rows of the semi join that holds its keys; the same rows.
   *
   * @param ids gives each new shared relation its id
   */
  public static LogicalRel rewrite(LogicalRel rel, CardinalityEstimator estimator, IntSupplier ids) {
    List<LogicalRel.Join> candidates = new ArrayList<>();
    Rebuild.eachNode(rel, node -> {
      if (node instanceof LogicalRel.Join join && join.kind() == JoinKind.SEMI && scan(join.left()) != null) {
        candidates.add(join);
      }
      return node;
    });
    for (LogicalRel.Join outer : candidates) {
      LogicalRel.Scan table = scan(outer.left());
      if (estimator.of(outer).rows() > SharedAggregateInput.MOST_SHARED * estimator.of(table).rows()) {
        continue;
      }
      boolean[] found = {false};
      Rebuild.eachNode(rel, node -> {
        found[0] |= within(node, outer).isPresent();
        return node;
      });
      if (found[0]) {
        LogicalRel shared = new LogicalRel.Shared(ids.getAsInt(), outer);
        LogicalRel rewritten = Rebuild.eachNode(rel, node -> node.equals(outer) ? shared
            : within(node, outer).map(names -> reading(node, shared, names)).orElse(node));
        return rewrite(rewritten, estimator, ids);
      }
    }
    return rel;
  }

  /**
   * For {@code node} a semi join whose rows {@code outer}'s hold: each of {@code outer}'s table columns
   * by the name {@code node}'s scan gives it; empty otherwise.
   */
  private static Optional<Map<String, String>> within(LogicalRel node, LogicalRel.Join outer) {
    if (!(node instanceof LogicalRel.Join join) || join.kind() != JoinKind.SEMI || join.equals(outer)
        || join.leftKeys().size() != outer.leftKeys().size()) {
      return Optional.empty();
    }
    LogicalRel.Scan scan = scan(join.left());
    LogicalRel.Scan outerScan = scan(outer.left());
    if (scan == null || scan.source() != outerScan.source() || RepeatedJoinInput.repeats(outer.right(), join)) {
      return Optional.empty();
    }
    Map<String, String> names = new LinkedHashMap<>(); // outer's column name -> this scan's
    for (int i = 0; i < outerScan.columns().size(); i++) {
      int at = scan.tableColumns().indexOf(outerScan.tableColumns().get(i));
      if (at >= 0) {
        names.put(outerScan.columns().get(i), scan.columns().get(at));
      }
    }
    if (!names.values().containsAll(scan.columns())) {
      return Optional.empty();
    }
    for (int i = 0; i < join.leftKeys().size(); i++) {
      if (!join.leftKeys().get(i).equals(names.get(outer.leftKeys().get(i)))) {
        return Optional.empty();
      }
    }
    Map<String, Expr> renamed = new HashMap<>();
    names.forEach((from, to) -> renamed.put(from, Expr.col(to)));
    Set<Expr> conditions = new HashSet<>(conditions(join.left()));
    if (!conditions(outer.left()).stream().allMatch(c -> conditions.contains(Substitution.apply(c, renamed)))
        || !keysWithin(join.right(), join.rightKeys(), outer.right(), outer.rightKeys())) {
      return Optional.empty();
    }
    return Optional.of(names);
  }

  /** {@code join} reading {@code shared}'s rows renamed by {@code names}, its filters applied again. */
  private static LogicalRel reading(LogicalRel node, LogicalRel shared, Map<String, String> names) {
    LogicalRel.Join join = (LogicalRel.Join) node;
    List<NamedExpr> renames = new ArrayList<>();
    names.forEach((from, to) -> renames.add(Expr.col(from).as(to)));
    LogicalRel rows = new LogicalRel.Project(shared, renames);
    List<Expr> conditions = conditions(join.left());
    if (!conditions.isEmpty()) {
      rows = new LogicalRel.Filter(rows, Exprs.and(conditions));
    }
    return new LogicalRel.Join(JoinKind.SEMI, rows, join.right(), join.leftKeys(), join.rightKeys());
  }

  /** The scan under {@code rel}, a scan under filters or none; null when it is not one. */
  static LogicalRel.Scan scan(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Scan scan -> scan;
      case LogicalRel.Filter filter -> scan(filter.input());
      default -> null;
    };
  }

  /** The conjuncts of the filters over a scan. */
  private static List<Expr> conditions(LogicalRel rel) {
    List<Expr> conditions = new ArrayList<>();
    for (LogicalRel at = rel; at instanceof LogicalRel.Filter filter; at = filter.input()) {
      conditions.addAll(Exprs.conjuncts(filter.condition()));
    }
    return conditions;
  }

  /**
   * Whether every row of {@code rel}'s {@code columns} is a row of {@code target}'s {@code targetColumns},
   * as far as where the columns come from shows.
   */
  static boolean keysWithin(LogicalRel rel, List<String> columns, LogicalRel target, List<String> targetColumns) {
    if (rel.equals(target)) {
      return columns.equals(targetColumns);
    }
    return switch (rel) {
      case LogicalRel.Filter filter -> keysWithin(filter.input(), columns, target, targetColumns);
      case LogicalRel.Sort sort -> keysWithin(sort.input(), columns, target, targetColumns);
      case LogicalRel.Limit limit -> keysWithin(limit.input(), columns, target, targetColumns);
      case LogicalRel.Shared shared -> keysWithin(shared.input(), columns, target, targetColumns);
      case LogicalRel.Join join when join.left().columns().containsAll(columns) ->
          keysWithin(join.left(), columns, target, targetColumns);
      case LogicalRel.Join join when join.kind() == JoinKind.INNER && join.right().columns().containsAll(columns) ->
          keysWithin(join.right(), columns, target, targetColumns);
      case LogicalRel.Cross cross when cross.left().columns().containsAll(columns) ->
          keysWithin(cross.left(), columns, target, targetColumns);
      case LogicalRel.Cross cross when cross.right().columns().containsAll(columns) ->
          keysWithin(cross.right(), columns, target, targetColumns);
      case LogicalRel.Project project -> passed(project.outputs(), columns)
          .map(inputs -> keysWithin(project.input(), inputs, target, targetColumns)).orElse(false);
      case LogicalRel.Aggregation a -> passed(a.keys(), columns)
          .map(inputs -> keysWithin(a.input(), inputs, target, targetColumns)).orElse(false);
      default -> false;
    };
  }

  /** The input columns {@code outputs} pass on unchanged as {@code columns}, or empty where one is computed. */
  private static Optional<List<String>> passed(List<NamedExpr> outputs, List<String> columns) {
    List<String> inputs = new ArrayList<>();
    for (String column : columns) {
      Optional<String> input = outputs.stream().filter(output -> output.name().equals(column))
          .map(NamedExpr::expr).filter(Expr.ColumnRef.class::isInstance).map(e -> ((Expr.ColumnRef) e).name())
          .findFirst();
      if (input.isEmpty()) {
        return Optional.empty();
      }
      inputs.add(input.get());
    }
    return Optional.of(inputs);
  }
}
