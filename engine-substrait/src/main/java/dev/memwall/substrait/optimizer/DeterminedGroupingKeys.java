package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Grouping by fewer keys where the others are determined by them: TPC-H Q3 groups by {@code
 * l_orderkey, o_orderdate, o_shippriority}, and since {@code l_orderkey = o_orderkey} and orders'
 * key {@code o_orderkey} determines its other columns, grouping by {@code l_orderkey} alone gives the
 * same groups; each determined key is carried as {@code min} of its column, the one value its group
 * has (null when that is null).
 *
 * <pre>
 * aggregate keys k, d measures m       =&gt;   project (the same columns, in order)
 *   input                                      aggregate keys k measures m, min(d) as d
 *                                                input
 * </pre>
 *
 * <p>A key is dropped when it is a column, of a type {@code min} takes (not a string), that the
 * keys kept determine ({@code KeyDependencies}, from the keys declared in the catalog). Keys are
 * considered from the last, and at least one stays. Stateless and thread-safe.
 */
public final class DeterminedGroupingKeys {
  private DeterminedGroupingKeys() {}

  /**
   * {@code rel} with every aggregation's determined keys carried instead of grouped by, at any
   * depth; the same rows.
   *
   * @param keys the keys declared for a scan's table (lists of the table's column names)
   * @param types the type of a column, or null where it is not known (such a key stays)
   */
  public static LogicalRel rewrite(LogicalRel rel, Function<LogicalRel.Scan, List<List<String>>> keys,
      Function<String, ColumnType> types) {
    KeyDependencies dependencies = new KeyDependencies(keys);
    return Rebuild.bottomUp(rel, a -> reduce(a, dependencies, types));
  }

  private static LogicalRel reduce(LogicalRel.Aggregation a, KeyDependencies dependencies,
      Function<String, ColumnType> types) {
    List<NamedExpr> kept = new ArrayList<>(a.keys());
    List<Aggregate> carried = new ArrayList<>();
    for (int i = a.keys().size() - 1; i >= 0 && kept.size() > 1; i--) {
      NamedExpr key = a.keys().get(i);
      if (!(key.expr() instanceof Expr.ColumnRef ref)) {
        continue;
      }
      ColumnType type = types.apply(ref.name());
      if (type == null || type.kind() == ColumnType.Kind.STRING || type.kind() == ColumnType.Kind.BOOLEAN) {
        continue;
      }
      List<NamedExpr> others = new ArrayList<>(kept);
      others.remove(key);
      Set<String> columns = new HashSet<>();
      for (NamedExpr other : others) {
        if (other.expr() instanceof Expr.ColumnRef otherRef) {
          columns.add(otherRef.name());
        }
      }
      if (dependencies.closure(a.input(), columns).contains(ref.name())) {
        kept = others;
        carried.add(Aggregate.min(ref, key.name()));
      }
    }
    if (carried.isEmpty()) {
      return a;
    }
    List<Aggregate> measures = new ArrayList<>(a.measures());
    measures.addAll(carried.reversed());
    return Rebuild.sameColumns(new LogicalRel.Aggregation(a.input(), kept, measures), a.columns());
  }
}
