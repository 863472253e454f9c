package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * An aggregation computed twice is computed once: SQL's common table expressions and views read
 * twice (TPC-H Q15's {@code revenue}, joined with supplier and also maximized) arrive as two copies
 * of one subtree whose columns have different names. Two aggregations are the same where their
 * inputs are, node by node, the same operators over the same tables with the same expressions once
 * the second's column names are read as the first's. The first then becomes a {@link
 * LogicalRel.Shared} relation, and the second a project of that shared relation renaming its columns
 * to the second's names, so that the plan above reads what it read before. An aggregation's result
 * is materialized anyway, so sharing it costs no copy; nothing else is shared. Aggregations under a
 * shared relation already, or one inside the other, are left alone. Stateless and thread-safe.
 */
public final class CommonAggregations {
  private CommonAggregations() {}

  /** {@code rel} with repeated aggregations shared; {@code ids} gives each shared relation's id. */
  public static LogicalRel rewrite(LogicalRel rel, IntSupplier ids) {
    LogicalRel at = rel;
    while (true) {
      List<LogicalRel.Aggregation> found = new ArrayList<>();
      collect(at, found, false);
      Map<LogicalRel, LogicalRel> replaced = pair(found, ids);
      if (replaced.isEmpty()) {
        return at;
      }
      at = replace(at, replaced);
    }
  }

  /** The replacements of the first pair of equal aggregations among {@code found}; empty if none. */
  private static Map<LogicalRel, LogicalRel> pair(List<LogicalRel.Aggregation> found, IntSupplier ids) {
    for (int i = 0; i < found.size(); i++) {
      for (int j = i + 1; j < found.size(); j++) {
        LogicalRel.Aggregation first = found.get(i);
        LogicalRel.Aggregation second = found.get(j);
        Map<String, String> names = new HashMap<>();
        if (first != second && !contains(first, second) && !contains(second, first) && same(first, second, names)) {
          LogicalRel.Shared shared = new LogicalRel.Shared(ids.getAsInt(), first);
          List<NamedExpr> renamed = new ArrayList<>();
          for (String column : second.columns()) {
            renamed.add(Expr.col(names.get(column)).as(column));
          }
          Map<LogicalRel, LogicalRel> replaced = new IdentityHashMap<>();
          replaced.put(first, shared);
          replaced.put(second, new LogicalRel.Project(shared, renamed));
          return replaced;
        }
      }
    }
    return Map.of();
  }

  /** The aggregations of {@code rel}, outside shared relations, in pre-order. */
  private static void collect(LogicalRel rel, List<LogicalRel.Aggregation> found, boolean shared) {
    if (rel instanceof LogicalRel.Aggregation a && !shared) {
      found.add(a);
    }
    boolean below = rel instanceof LogicalRel.Shared;
    inputs(rel).forEach(input -> collect(input, found, shared || below));
  }

  static boolean contains(LogicalRel rel, LogicalRel part) {
    return rel == part || inputs(rel).stream().anyMatch(input -> contains(input, part));
  }

  static List<LogicalRel> inputs(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Scan scan -> List.of();
      case LogicalRel.Filter filter -> List.of(filter.input());
      case LogicalRel.Project project -> List.of(project.input());
      case LogicalRel.Aggregation a -> List.of(a.input());
      case LogicalRel.Sort sort -> List.of(sort.input());
      case LogicalRel.Limit limit -> List.of(limit.input());
      case LogicalRel.Join join -> List.of(join.left(), join.right());
      case LogicalRel.Cross cross -> List.of(cross.left(), cross.right());
      case LogicalRel.Shared shared -> List.of(shared.input());
    };
  }

  /** {@code rel} with the nodes of {@code replaced} (by identity) replaced. */
  static LogicalRel replace(LogicalRel rel, Map<LogicalRel, LogicalRel> replaced) {
    LogicalRel replacement = replaced.get(rel);
    return replacement != null ? replacement : Rebuild.withInputs(rel, input -> replace(input, replaced));
  }

  /**
   * Whether {@code b} computes what {@code a} does, its columns named differently; on success
   * {@code names} maps each column of {@code b} (and of its inputs) to {@code a}'s.
   */
  static boolean same(LogicalRel a, LogicalRel b, Map<String, String> names) {
    return switch (a) {
      case LogicalRel.Scan x when b instanceof LogicalRel.Scan y -> {
        if (x.source() != y.source() || !x.tableColumns().equals(y.tableColumns())) {
          yield false;
        }
        for (int i = 0; i < x.columns().size(); i++) {
          names.put(y.columns().get(i), x.columns().get(i));
        }
        yield true;
      }
      case LogicalRel.Filter x when b instanceof LogicalRel.Filter y ->
          same(x.input(), y.input(), names) && x.condition().equals(Exprs.renamed(y.condition(), names));
      case LogicalRel.Project x when b instanceof LogicalRel.Project y ->
          same(x.input(), y.input(), names) && sameOutputs(x.outputs(), y.outputs(), names);
      case LogicalRel.Aggregation x when b instanceof LogicalRel.Aggregation y ->
          same(x.input(), y.input(), names) && sameOutputs(x.keys(), y.keys(), names)
              && sameMeasures(x.measures(), y.measures(), names);
      case LogicalRel.Sort x when b instanceof LogicalRel.Sort y -> same(x.input(), y.input(), names)
          && x.keys().equals(y.keys().stream().map(key -> new SortKey(names.getOrDefault(key.column(), key.column()),
              key.descending(), key.nullsFirst())).toList());
      case LogicalRel.Limit x when b instanceof LogicalRel.Limit y -> x.rows() == y.rows()
          && same(x.input(), y.input(), names);
      case LogicalRel.Join x when b instanceof LogicalRel.Join y -> x.kind() == y.kind()
          && same(x.left(), y.left(), names) && same(x.right(), y.right(), names)
          && x.leftKeys().equals(y.leftKeys().stream().map(k -> names.getOrDefault(k, k)).toList())
          && x.rightKeys().equals(y.rightKeys().stream().map(k -> names.getOrDefault(k, k)).toList());
      case LogicalRel.Cross x when b instanceof LogicalRel.Cross y ->
          same(x.left(), y.left(), names) && same(x.right(), y.right(), names);
      case LogicalRel.Shared x when b instanceof LogicalRel.Shared y -> x.id() == y.id() && identity(x, names);
      default -> false;
    };
  }

  /** A shared relation read twice: its columns are its own. */
  private static boolean identity(LogicalRel.Shared shared, Map<String, String> names) {
    shared.columns().forEach(column -> names.put(column, column));
    return true;
  }

  private static boolean sameOutputs(List<NamedExpr> a, List<NamedExpr> b, Map<String, String> names) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).expr().equals(Exprs.renamed(b.get(i).expr(), names))) {
        return false;
      }
    }
    for (int i = 0; i < a.size(); i++) {
      names.put(b.get(i).name(), a.get(i).name());
    }
    return true;
  }

  private static boolean sameMeasures(List<Aggregate> a, List<Aggregate> b, Map<String, String> names) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      Aggregate x = a.get(i);
      Aggregate y = b.get(i);
      if (x.function() != y.function() || (x.argument() == null) != (y.argument() == null)
          || x.argument() != null && !x.argument().equals(Exprs.renamed(y.argument(), names))) {
        return false;
      }
    }
    for (int i = 0; i < a.size(); i++) {
      names.put(b.get(i).name(), a.get(i).name());
    }
    return true;
  }
}
