package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.logical.SharedReads;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link LogicalRel} as a memwall {@link Relation}, reading only the columns its parents need:
 * each node is lowered with the set of column names wanted above it, scans select just those, and
 * joins keep just those. A lowered relation may carry more columns than asked for, never fewer.
 *
 * <p>Joins run when they are lowered (a {@link Relation} join runs its build side when its output
 * columns are chosen), so lowering is where execution starts; refusals belong in the conversion
 * before it. Ownership: the returned relation is the caller's; when lowering throws, whatever was
 * built is closed. Not thread-safe; one per plan run.
 */
final class RelationLowering {
  /** The name of the constant key a cross product joins on. */
  private static final String CROSS_KEY = "cross$key";

  private final ExecutionContext context;
  /** Inputs materialized once and read again inside a join's build side, by identity ({@link #sharedJoin}). */
  private final Map<LogicalRel, Table> shared = new IdentityHashMap<>();
  private int crossKeys;

  RelationLowering(ExecutionContext context) {
    this.context = context;
  }

  /** {@code rel} with at least the columns {@code required}. */
  Relation lower(LogicalRel rel, Set<String> required) {
    Table materialized = shared.get(rel);
    if (materialized != null) {
      return Relation.scan(materialized, context);
    }
    return switch (rel) {
      case LogicalRel.Scan scan -> scan(scan, required);
      case LogicalRel.Filter filter -> lower(filter.input(), union(required, Exprs.columns(filter.condition())))
          .filter(filter.condition());
      case LogicalRel.Project project -> project(project, required);
      case LogicalRel.Aggregation a -> {
        Set<String> needed = new LinkedHashSet<>();
        a.keys().forEach(key -> needed.addAll(Exprs.columns(key.expr())));
        for (Aggregate measure : a.measures()) {
          if (measure.argument() != null) {
            needed.addAll(Exprs.columns(measure.argument()));
          }
        }
        Relation input = lower(a.input(), needed);
        if (a.keys().stream().anyMatch(key -> computedString(key.expr(), a.input()))) {
          // the hash aggregation groups strings by stored columns only: a substring key is materialized first
          input = Relation.own(input.toTable(), context);
        }
        yield input.aggregate(a.keys(), a.measures().toArray(Aggregate[]::new));
      }
      case LogicalRel.Sort sort -> {
        Set<String> needed = new LinkedHashSet<>(required);
        sort.keys().forEach(key -> needed.add(key.column()));
        yield lower(sort.input(), needed).orderBy(sort.keys().toArray(SortKey[]::new));
      }
      case LogicalRel.Limit limit -> lower(limit.input(), required).limit(limit.rows());
      case LogicalRel.Join join -> join(join, required);
      case LogicalRel.Cross cross -> cross(cross, required);
    };
  }

  /**
   * Whether {@code expr}, read over {@code rel}, is a substring computed by a projection below rather
   * than a stored column (a relation's projections are substituted into the steps after them).
   */
  static boolean computedString(Expr expr, LogicalRel rel) {
    return switch (expr) {
      case Expr.Substring substring -> true;
      case Expr.ColumnRef ref -> definedBySubstring(ref.name(), rel);
      default -> false;
    };
  }

  private static boolean definedBySubstring(String column, LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Project project -> project.outputs().stream().filter(output -> output.name().equals(column))
          .findFirst().map(output -> computedString(output.expr(), project.input())).orElse(false);
      case LogicalRel.Filter filter -> definedBySubstring(column, filter.input());
      case LogicalRel.Sort sort -> definedBySubstring(column, sort.input());
      case LogicalRel.Limit limit -> definedBySubstring(column, limit.input());
      case LogicalRel.Join join -> definedBySubstring(column, join.left()) || definedBySubstring(column, join.right());
      case LogicalRel.Cross cross -> definedBySubstring(column, cross.left())
          || definedBySubstring(column, cross.right());
      case LogicalRel.Scan scan -> false;
      case LogicalRel.Aggregation aggregation -> false; // its keys and measures are stored columns of its result
    };
  }

  private Relation scan(LogicalRel.Scan scan, Set<String> required) {
    List<NamedExpr> outputs = new ArrayList<>();
    boolean renames = false;
    for (int i = 0; i < scan.columns().size(); i++) {
      if (required.contains(scan.columns().get(i))) {
        outputs.add(Expr.col(scan.tableColumns().get(i)).as(scan.columns().get(i)));
        renames |= !scan.columns().get(i).equals(scan.tableColumns().get(i));
      }
    }
    if (outputs.isEmpty() && !scan.columns().isEmpty()) { // count(*) and the like: one column for the row count
      outputs.add(Expr.col(scan.tableColumns().getFirst()).as(scan.columns().getFirst()));
      renames |= !scan.columns().getFirst().equals(scan.tableColumns().getFirst());
    }
    Relation relation = Relation.scan(scan.source(), context);
    return !renames && outputs.size() == scan.source().schema().getFields().size() ? relation
        : relation.project(outputs.toArray(NamedExpr[]::new));
  }

  private Relation project(LogicalRel.Project project, Set<String> required) {
    List<NamedExpr> outputs = project.outputs().stream().filter(o -> required.contains(o.name())).toList();
    if (outputs.isEmpty()) {
      outputs = List.of(project.outputs().getFirst());
    }
    Set<String> needed = new LinkedHashSet<>();
    outputs.forEach(output -> needed.addAll(Exprs.columns(output.expr())));
    Relation input = lower(project.input(), needed);
    return input.project(outputs.toArray(NamedExpr[]::new));
  }

  private Relation join(LogicalRel.Join join, Set<String> required) {
    boolean leftOnly = join.kind() == JoinKind.SEMI || join.kind() == JoinKind.ANTI;
    List<String> keep = new ArrayList<>();
    for (String column : join.left().columns()) {
      if (required.contains(column)) {
        keep.add(column);
      }
    }
    if (!leftOnly) {
      for (String column : join.right().columns()) {
        if (required.contains(column)) {
          keep.add(column);
        }
      }
    }
    if (keep.isEmpty()) {
      keep.add(join.leftKeys().getFirst());
    }
    if (join.kind() == JoinKind.INNER && SharedReads.readIn(join.right(), join.left())) {
      return sharedJoin(join, required, keep);
    }
    Relation left = lower(join.left(), union(required, Set.copyOf(join.leftKeys())));
    Relation right;
    try {
      right = lower(join.right(), union(required, Set.copyOf(join.rightKeys())));
    } catch (RuntimeException | Error e) {
      left.close();
      throw e;
    }
    Relation.JoinSpec spec = switch (join.kind()) {
      case INNER -> left.join(right);
      case LEFT_OUTER -> left.leftOuterJoin(right);
      case SEMI -> left.semiJoin(right);
      case ANTI -> left.antiJoin(right);
    };
    return spec.on(join.leftKeys(), join.rightKeys()).keep(keep.toArray(String[]::new));
  }

  /**
   * An inner join whose build side reads its probe side again (the very node, as {@code
   * SharedAggregateInput} plans it): the probe side is materialized once, the build side reads it
   * borrowed and runs when the join's columns are chosen, and the probe reads it owned, so that it is
   * freed with the join's result.
   */
  private Relation sharedJoin(LogicalRel.Join join, Set<String> required, List<String> keep) {
    Set<String> needed = union(required, Set.copyOf(join.leftKeys()));
    needed.addAll(SharedReads.columns(join.right(), join.left()));
    needed.retainAll(join.left().columns());
    Table table = lower(join.left(), needed).toTable();
    Relation right;
    try {
      shared.put(join.left(), table);
      right = lower(join.right(), union(required, Set.copyOf(join.rightKeys())));
    } catch (RuntimeException | Error e) {
      table.close();
      throw e;
    } finally {
      shared.remove(join.left());
    }
    return Relation.own(table, context).join(right).on(join.leftKeys(), join.rightKeys())
        .keep(keep.toArray(String[]::new));
  }

  /** A cross product: both inputs get a constant key column, joined on it. */
  private Relation cross(LogicalRel.Cross cross, Set<String> required) {
    String leftKey = CROSS_KEY + (crossKeys++);
    String rightKey = CROSS_KEY + (crossKeys++);
    Relation left = withKey(cross.left(), required, leftKey);
    Relation right;
    try {
      right = withKey(cross.right(), required, rightKey);
    } catch (RuntimeException | Error e) {
      left.close();
      throw e;
    }
    List<String> keep = new ArrayList<>();
    cross.left().columns().stream().filter(required::contains).forEach(keep::add);
    cross.right().columns().stream().filter(required::contains).forEach(keep::add);
    if (keep.isEmpty()) {
      keep.add(leftKey);
    }
    return left.join(right).on(leftKey, rightKey).keep(keep.toArray(String[]::new));
  }

  private Relation withKey(LogicalRel rel, Set<String> required, String key) {
    List<NamedExpr> outputs = new ArrayList<>();
    rel.columns().stream().filter(required::contains).forEach(name -> outputs.add(Expr.col(name).as(name)));
    outputs.add(Expr.lit(0L).as(key));
    return lower(rel, required).project(outputs.toArray(NamedExpr[]::new));
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new LinkedHashSet<>(a);
    all.addAll(b);
    return all;
  }
}
