package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.optimizer.ForeignKey;

/**
 * Whether a column of a relation is certainly never null by what the catalog declares, which SQL's
 * types do not carry (memwall declares every column to SQL as nullable): the column is read,
 * unchanged, from a table column that is part of a declared key ({@link Catalog#declareKey}) or of
 * a declared foreign key ({@link Catalog#declareForeignKey}), both of which promise non-null
 * values, or whose Arrow field is not nullable. {@code NOT IN} over such columns on both sides is a
 * plain anti join ({@link NullAwareAntiJoin}).
 *
 * <p>The column is followed down through filters, sorts, limits, shared relations, projections that
 * pass it on as a column reference, the grouping keys of an aggregation (a group's key is one of its
 * rows' values), cross products and the sides of inner, semi and anti joins, and the preserved side
 * of a left outer join; a computed value, a measure or the optional side of an outer join is not
 * known to be non-null. Like every use of a declaration, the answer is only as right as the
 * declaration: data that breaks it gives wrong answers. Stateless; the catalog is only read.
 */
final class DeclaredNotNull {
  private DeclaredNotNull() {}

  /** Whether {@code column}, one of {@code rel}'s columns, is certainly non-null in every row of it. */
  static boolean of(LogicalRel rel, String column, Catalog catalog) {
    return switch (rel) {
      case LogicalRel.Scan scan -> {
        String stored = scan.tableColumn(column);
        yield stored != null && declared(scan, stored, catalog);
      }
      case LogicalRel.Filter filter -> of(filter.input(), column, catalog);
      case LogicalRel.Sort sort -> of(sort.input(), column, catalog);
      case LogicalRel.Limit limit -> of(limit.input(), column, catalog);
      case LogicalRel.Shared shared -> of(shared.input(), column, catalog);
      case LogicalRel.Project project -> passed(project.outputs(), project.input(), column, catalog);
      case LogicalRel.Aggregation aggregation -> passed(aggregation.keys(), aggregation.input(), column, catalog);
      case LogicalRel.Cross cross -> side(cross.left(), cross.right(), column, catalog);
      case LogicalRel.Join join -> join.kind() == JoinKind.INNER ? side(join.left(), join.right(), column, catalog)
          : join.left().columns().contains(column) && of(join.left(), column, catalog);
    };
  }

  /** Whether the output {@code column} among {@code outputs} is a column of {@code input} that is non-null. */
  private static boolean passed(java.util.List<NamedExpr> outputs, LogicalRel input, String column,
      Catalog catalog) {
    return outputs.stream().filter(output -> output.name().equals(column)).findFirst()
        .map(output -> output.expr() instanceof Expr.ColumnRef ref && input.columns().contains(ref.name())
            && of(input, ref.name(), catalog))
        .orElse(false);
  }

  private static boolean side(LogicalRel left, LogicalRel right, String column, Catalog catalog) {
    return left.columns().contains(column) ? of(left, column, catalog)
        : right.columns().contains(column) && of(right, column, catalog);
  }

  /** Whether the table column {@code stored} of {@code scan}'s table is declared non-null. */
  private static boolean declared(LogicalRel.Scan scan, String stored, Catalog catalog) {
    boolean notNullable = scan.source().schema().getFields().stream()
        .anyMatch(field -> field.getName().equals(stored) && !field.isNullable());
    return notNullable || catalog.keys(scan.table()).stream().anyMatch(key -> key.contains(stored))
        || catalog.foreignKeys(scan.table()).stream().map(ForeignKey::columns).anyMatch(key -> key.contains(stored));
  }
}
