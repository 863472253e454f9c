package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.logical.Names;
import dev.memwall.substrait.optimizer.EmptyLimit;
import io.substrait.expression.AggregateFunctionInvocation;
import io.substrait.expression.Expression;
import io.substrait.expression.FieldReference;
import io.substrait.expression.FunctionArg;
import io.substrait.relation.AbstractReadRel;
import io.substrait.relation.Cross;
import io.substrait.relation.Fetch;
import io.substrait.relation.Filter;
import io.substrait.relation.Join;
import io.substrait.relation.NamedScan;
import io.substrait.relation.Project;
import io.substrait.relation.Rel;
import io.substrait.relation.Sort;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Substrait relations as {@link LogicalRel}s, checked against the {@link Catalog} before anything
 * runs. Substrait refers to fields by position, memwall by name: each converted relation carries
 * the names of its output fields in Substrait's order ({@link Converted#names}), and every column
 * gets a name unique within the plan ({@link Names}).
 *
 * <p>Supported: named-table reads (with their filter), filter (an uncorrelated {@code field IN
 * (subquery)} among its conjuncts as a semi join, {@code field NOT IN (subquery)} as an anti join
 * with SQL's nulls ({@link NullAwareAntiJoin}), {@code [NOT] EXISTS} correlated by field equalities
 * as a semi or anti join, and by one comparison of fields besides ({@link CorrelatedComparison}), a
 * scalar subquery that is a global aggregate as a column crossed in, or
 * joined on its correlation's fields), project (Substrait's project appends
 * its expressions to the input's fields), aggregate (one grouping set; sum, avg, min, max, count,
 * count(*); DISTINCT only where every measure is over one argument's ({@link DistinctAggregation});
 * no filter per measure), sort by fields, fetch without offset, inner, left,
 * right (turned around), semi and anti joins whose condition has at least one field-equals-field
 * conjunct across the sides (the other conjuncts are filtered after an inner join, and pushed into
 * the other side of an outer, semi or anti join when they read only that side; anything else is
 * refused), cross products, and every relation's emit (remap). Everything else throws
 * {@link UnsupportedPlanException} with the path of relation kinds from the root. Not thread-safe;
 * one converter per plan.
 */
final class RelConverter {
  /** A converted relation and the names of its output fields in Substrait's order. */
  record Converted(LogicalRel rel, List<String> names) {}

  private final Catalog catalog;
  private final Names names = new Names();
  /** The type of each column Substrait declares one of memwall's types for. */
  private final Map<String, ColumnType> types = new HashMap<>();

  RelConverter(Catalog catalog) {
    this.catalog = catalog;
  }

  /**
   * Whether memwall's hash joins take columns {@code a} and {@code b} as a key pair: both of one
   * integral kind a join key may have (INT32, INT64, DATE), by the types Substrait declares. Other
   * equalities are conditions checked after the join.
   */
  boolean joinable(String a, String b) {
    ColumnType left = types.get(a);
    ColumnType right = types.get(b);
    return left != null && left.equals(right) && (left.kind() == ColumnType.Kind.INT32
        || left.kind() == ColumnType.Kind.INT64 || left.kind() == ColumnType.Kind.DATE);
  }

  /** The memwall type Substrait declares for column {@code name}, or null where it declares none memwall has. */
  ColumnType type(String name) {
    return types.get(name);
  }

  /** {@code name}, recorded as of {@code type}'s memwall type where it has one. */
  private String typed(String name, io.substrait.type.Type type) {
    SubstraitTypes.of(type).ifPresent(columnType -> types.put(name, columnType));
    return name;
  }

  /** {@code rel} converted; {@code position} is the path of relation kinds down to its parent. */
  Converted convert(Rel rel, String position) {
    String here = position + " > " + kind(rel);
    Converted converted = switch (rel) {
      case NamedScan scan -> scan(scan, here);
      case AbstractReadRel read -> throw new UnsupportedPlanException(here, "read of "
          + read.getClass().getSimpleName().replace("Immutable", "") + " (only named tables of the catalog)");
      case Filter filter -> filter(filter, here);
      case Project project -> project(project, here);
      case io.substrait.relation.Aggregate aggregate -> aggregate(aggregate, here);
      case Sort sort -> sort(sort, here);
      case Fetch fetch -> fetch(fetch, here);
      case Join join -> join(join, here);
      case Cross cross -> {
        Converted left = convert(cross.getLeft(), here + " (left)");
        Converted right = convert(cross.getRight(), here + " (right)");
        yield new Converted(new LogicalRel.Cross(left.rel(), right.rel()), concat(left.names(), right.names()));
      }
      default -> throw new UnsupportedPlanException(here, "relation " + kind(rel));
    };
    return finish(rel, converted, here);
  }

  /** {@code converted} with {@code rel}'s emit applied, or its repeated names made unique. */
  private Converted finish(Rel rel, Converted converted, String here) {
    if (rel.getRemap().isPresent()) {
      return remap(converted, rel.getRemap().get().indices(), here);
    }
    boolean repeats = new HashSet<>(converted.names()).size() < converted.names().size();
    return repeats ? remap(converted, java.util.stream.IntStream.range(0, converted.names().size()).boxed().toList(), here)
        : converted;
  }

  /** The kind of {@code rel} as paths name it: {@code read}, {@code filter}, {@code join}... */
  static String kind(Rel rel) {
    return switch (rel) {
      case AbstractReadRel read -> "read";
      case io.substrait.relation.Aggregate aggregate -> "aggregate";
      default -> rel.getClass().getSimpleName().replace("Immutable", "").toLowerCase(Locale.ROOT);
    };
  }

  private Converted scan(NamedScan scan, String here) {
    Table table = catalog.table(scan.getNames())
        .orElseThrow(() -> new UnsupportedPlanException(here, "table " + String.join(".", scan.getNames())
            + " is not in the catalog (it has " + catalog.tables().keySet() + ")"));
    String tableName = catalog.registeredName(scan.getNames()).orElseThrow();
    if (scan.getInitialSchema().struct().fields().size() != scan.getInitialSchema().names().size()) {
      throw new UnsupportedPlanException(here, "a nested schema (only top-level columns are read)");
    }
    List<String> tableColumns = new ArrayList<>();
    List<String> columns = new ArrayList<>();
    List<Field> fields = table.schema().getFields();
    for (String wanted : scan.getInitialSchema().names()) {
      String actual = fields.stream().map(Field::getName).filter(n -> n.equalsIgnoreCase(wanted)).findFirst()
          .orElseThrow(() -> new UnsupportedPlanException(here, "table " + tableName + " has no column '" + wanted
              + "'"));
      tableColumns.add(actual);
      columns.add(typed(names.fresh(actual), scan.getInitialSchema().struct().fields().get(columns.size())));
    }
    LogicalRel rel = new LogicalRel.Scan(tableName, table, tableColumns, columns);
    ExpressionConverter expressions = new ExpressionConverter(columns, here);
    if (scan.getFilter().isPresent()) {
      rel = new LogicalRel.Filter(rel, expressions.convert(scan.getFilter().get()));
    }
    if (scan.getBestEffortFilter().isPresent()) { // a hint that may be applied: applying it is exact
      rel = new LogicalRel.Filter(rel, expressions.convert(scan.getBestEffortFilter().get()));
    }
    return new Converted(rel, columns);
  }

  /**
   * A filter. An uncorrelated scalar subquery in its condition that is certainly one row is crossed
   * with the input, its value a column the condition reads; a correlated one that is a global
   * aggregate over a filter correlated by field equalities is grouped by its inner fields and joined
   * on them, which is exact where the value is only compared (a row without a group compares with
   * null and is dropped either way). Among its conjuncts, {@code field IN (subquery)} with an uncorrelated one-column
   * subquery becomes a semi join with the subquery, {@code field NOT IN (subquery)} an anti join
   * with SQL's nulls ({@link NullAwareAntiJoin}), and {@code [NOT] EXISTS (subquery)} whose
   * subquery is a filter correlated by {@code inner field = outer field} conjuncts a semi (anti)
   * join on those fields with the subquery's other conjuncts, or, with one {@code inner field op
   * outer field} comparison besides, a join with its groups' extremes ({@link CorrelatedComparison}).
   * The order: uncorrelated scalar subqueries crossed with the input, the filter of the conjuncts that
   * read no correlated scalar value (on its input, where a comma join's conditions must be), the
   * semi and anti joins, the correlated scalar subqueries' joins, each grouping only the keys of a
   * relation that has at least those of the rows that got there ({@link KeyReduction}), and the
   * filter of the conjuncts that read their values. Every step only drops rows or adds columns, so
   * the order does not change the result.
   */
  private Converted filter(Filter filter, String here) {
    Converted input = convert(filter.getInput(), here);
    List<Scalar> scalars = new ArrayList<>();
    ExpressionConverter expressions = new ExpressionConverter(input.names(), here,
        scalar -> scalar(scalar, input.names(), here, scalars));
    List<Expr> kept = new ArrayList<>();
    List<Expression> subqueries = new ArrayList<>();
    for (Expression conjunct : conjuncts(filter.getCondition())) {
      if (conjunct instanceof Expression.InPredicate in && in.needles().size() == 1 || exists(conjunct) != null
          || notIn(conjunct) != null) {
        subqueries.add(conjunct);
      } else {
        kept.add(expressions.convert(conjunct));
      }
    }
    LogicalRel rel = input.rel();
    Set<String> correlatedValues = new HashSet<>();
    for (Scalar scalar : scalars) { // uncorrelated: one row, crossing it adds its value as a column
      if (scalar.outerKeys().isEmpty()) {
        rel = new LogicalRel.Cross(rel, scalar.rel());
      } else if (kept.stream().allMatch(conjunct -> rejectsNull(conjunct, scalar.value()))) {
        correlatedValues.add(scalar.value());
      } else {
        throw new UnsupportedPlanException(here, "correlated scalar subquery outside a comparison of the filter's "
            + "conditions");
      }
    }
    List<Expr> late = kept.stream().filter(c -> Exprs.columns(c).stream().anyMatch(correlatedValues::contains)).toList();
    kept.removeAll(late);
    rel = kept.isEmpty() ? rel : new LogicalRel.Filter(rel, Exprs.and(kept));
    for (Expression subquery : subqueries) {
      if (subquery instanceof Expression.InPredicate in) {
        rel = in(rel, in, expressions, false, here);
      } else if (notIn(subquery) != null) {
        rel = in(rel, notIn(subquery), expressions, true, here);
      } else {
        rel = exists(rel, exists(subquery), !(subquery instanceof Expression.SetPredicate), input.names(), here);
      }
    }
    for (Scalar scalar : scalars) { // correlated: grouped for the keys of the rows that got here only
      if (!scalar.outerKeys().isEmpty()) {
        LogicalRel reducer = KeyReduction.reducer(rel, scalar.outerKeys());
        LogicalRel grouped = reducer == null ? scalar.rel()
            : KeyReduction.reduce(scalar.rel(), reducer, scalar.innerKeys(), scalar.outerKeys());
        rel = new LogicalRel.Join(JoinKind.INNER, rel, grouped, scalar.outerKeys(), scalar.innerKeys());
      }
    }
    rel = late.isEmpty() ? rel : new LogicalRel.Filter(rel, Exprs.and(late));
    return new Converted(rel, input.names());
  }

  /**
   * A scalar subquery's relation, the column of its value, and the columns it joins its filter's
   * input on: none for an uncorrelated one (crossed in, one row), the correlation's fields otherwise
   * (its aggregate grouped by them, joined in; a filter row without a group fails its comparison
   * with the null value either way).
   */
  private record Scalar(LogicalRel rel, String value, List<String> outerKeys, List<String> innerKeys) {}

  /**
   * The column of {@code subquery}'s value, its relation added to {@code scalars}: an uncorrelated
   * subquery of one column that is certainly one row (a global aggregate, possibly projected), or a
   * global aggregate (projects above and below it allowed) over a filter correlated only by
   * {@code inner field = outer field} conjuncts.
   */
  private String scalar(Expression.ScalarSubquery subquery, List<String> outer, String here, List<Scalar> scalars) {
    String inside = here + " (scalar)";
    Correlated correlated = correlatedShape(subquery.input()) ? correlated(subquery.input(), outer, inside) : null;
    Converted value = correlated != null ? correlated.converted() : convert(subquery.input(), inside);
    if (value.names().size() != 1) {
      throw new UnsupportedPlanException(here, "scalar subquery with " + value.names().size() + " columns");
    }
    if (correlated == null && !singleRow(value.rel())) {
      throw new UnsupportedPlanException(here, "scalar subquery that is not certainly one row (only a global "
          + "aggregate, possibly projected)");
    }
    List<String> outerKeys = correlated == null ? List.of() : correlated.outerKeys();
    List<String> innerKeys = correlated == null ? List.of() : correlated.innerKeys();
    scalars.add(new Scalar(value.rel(), value.names().getFirst(), outerKeys, innerKeys));
    return value.names().getFirst();
  }

  private static boolean singleRow(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Aggregation aggregation -> aggregation.keys().isEmpty();
      case LogicalRel.Project project -> singleRow(project.input());
      default -> false;
    };
  }

  /** A relation of a correlated scalar subquery, carrying its inner key columns, and the correlation's fields. */
  private record Correlated(Converted converted, List<String> outerKeys, List<String> innerKeys) {}

  /** Whether {@code rel} is projects over a global aggregate over projects over a filter. */
  private static boolean correlatedShape(Rel rel) {
    Rel at = rel;
    while (at instanceof Project project) {
      at = project.getInput();
    }
    if (!(at instanceof io.substrait.relation.Aggregate aggregate) || aggregate.getGroupings().size() > 1
        || (aggregate.getGroupings().size() == 1 && !aggregate.getGroupings().getFirst().getExpressions().isEmpty())) {
      return false;
    }
    at = aggregate.getInput();
    while (at instanceof Project project) {
      at = project.getInput();
    }
    return at instanceof Filter;
  }

  /**
   * {@code rel} (of {@link #correlatedShape}) with its filter's correlation conjuncts taken out, its
   * projects carrying the inner key columns and its aggregate grouped by them; null when the filter
   * has no correlation conjunct (the subquery is converted as an uncorrelated one).
   */
  private Correlated correlated(Rel rel, List<String> outer, String here) {
    String at = here + " > " + kind(rel);
    return switch (rel) {
      case Project project -> {
        Correlated below = correlated(project.getInput(), outer, at);
        yield below == null ? null : new Correlated(carry(finish(project, projectOver(project, below.converted(), at),
            at), below.innerKeys()), below.outerKeys(), below.innerKeys());
      }
      case io.substrait.relation.Aggregate aggregate -> {
        Correlated below = correlated(aggregate.getInput(), outer, at);
        if (below == null) {
          yield null;
        }
        Converted global = aggregateOver(aggregate, below.converted(), at);
        if (!(global.rel() instanceof LogicalRel.Aggregation aggregation) || aggregate.getRemap().isPresent()) {
          throw new UnsupportedPlanException(at, "correlated scalar subquery whose aggregate has an emit");
        }
        if (aggregate.getMeasures().stream()
            .anyMatch(m -> m.getFunction().invocation() == Expression.AggregationInvocation.DISTINCT)) {
          throw new UnsupportedPlanException(at, "correlated scalar subquery over DISTINCT values");
        }
        if (aggregation.measures().stream().anyMatch(m -> m.function() == Aggregate.Function.COUNT)) {
          throw new UnsupportedPlanException(at, "correlated scalar subquery over a count (a missing group counts 0, "
              + "not null)");
        }
        List<NamedExpr> keys = below.innerKeys().stream().map(key -> Expr.col(key).as(key)).toList();
        yield new Correlated(new Converted(new LogicalRel.Aggregation(aggregation.input(), keys, aggregation.measures()),
            global.names()), below.outerKeys(), below.innerKeys());
      }
      case Filter filter -> {
        Decorrelated inner = decorrelate(filter, outer, at);
        if (!inner.comparisons().isEmpty()) {
          throw new UnsupportedPlanException(at, "correlated scalar subquery with a comparison beyond its field "
              + "equalities: " + inner.comparisons());
        }
        if (inner.outerKeys().isEmpty()) {
          yield null;
        }
        Converted done = finish(filter, new Converted(inner.rel(), inner.names()), at);
        yield new Correlated(filter.getRemap().isPresent() ? carry(done, inner.innerKeys()) : done, inner.outerKeys(),
            inner.innerKeys());
      }
      default -> throw new IllegalStateException("not of the correlated shape: " + kind(rel));
    };
  }

  /** {@code converted}, a project (what a project or an emit converts into), also passing on {@code keys}. */
  private static Converted carry(Converted converted, List<String> keys) {
    if (!(converted.rel() instanceof LogicalRel.Project project)) {
      throw new IllegalStateException("an emit or a project converts into a project, not " + converted.rel());
    }
    List<NamedExpr> outputs = new ArrayList<>(project.outputs());
    for (String key : keys) {
      if (outputs.stream().noneMatch(output -> output.name().equals(key))) {
        outputs.add(Expr.col(key).as(key));
      }
    }
    return new Converted(new LogicalRel.Project(project.input(), outputs), converted.names());
  }

  /**
   * Whether {@code conjunct} rejects a row whose {@code column} is null: a comparison whose operands
   * are columns, literals, arithmetic and casts, which are null when an operand is.
   */
  private static boolean rejectsNull(Expr conjunct, String column) {
    return !Exprs.columns(conjunct).contains(column)
        || (conjunct instanceof Expr.Comparison c && strict(c.left()) && strict(c.right()));
  }

  private static boolean strict(Expr expr) {
    return switch (expr) {
      case Expr.ColumnRef ref -> true;
      case Expr.Literal literal -> true;
      case Expr.Arithmetic a -> strict(a.left()) && strict(a.right());
      case Expr.Cast cast -> strict(cast.input());
      default -> false;
    };
  }

  /** The IN predicate of one value that {@code conjunct} negates, or null. */
  private static Expression.InPredicate notIn(Expression conjunct) {
    return conjunct instanceof Expression.ScalarFunctionInvocation call && call.declaration().name().equalsIgnoreCase("not")
        && call.arguments().size() == 1 && call.arguments().getFirst() instanceof Expression.InPredicate in
        && in.needles().size() == 1 ? in : null;
  }

  /**
   * {@code rel} semi-joined with {@code in}'s uncorrelated one-column subquery ({@code negated}: the
   * rows for which NOT IN is true, {@link NullAwareAntiJoin}).
   */
  private LogicalRel in(LogicalRel rel, Expression.InPredicate in, ExpressionConverter expressions, boolean negated,
      String here) {
    String kind = negated ? "NOT IN" : "IN";
    if (!(expressions.convert(in.needles().getFirst()) instanceof Expr.ColumnRef needle)) {
      throw new UnsupportedPlanException(here, kind + " subquery whose value is not a field");
    }
    String inside = here + (negated ? " (not in)" : " (in)");
    Converted haystack = convert(in.haystack(), inside);
    if (haystack.names().size() != 1) {
      throw new UnsupportedPlanException(here, kind + " subquery with " + haystack.names().size() + " columns");
    }
    if (!joinable(needle.name(), haystack.names().getFirst())) {
      throw new UnsupportedPlanException(here, kind + " subquery on columns a hash join does not key on (INTEGER, "
          + "BIGINT or DATE of one type)");
    }
    if (!negated) {
      return SemiJoinPlacement.place(rel, JoinKind.SEMI, haystack.rel(), List.of(needle.name()), haystack.names());
    }
    boolean nullable = (in.needles().getFirst().getType().nullable() && !DeclaredNotNull.of(rel, needle.name(), catalog))
        || (in.haystack().getRecordType().fields().getFirst().nullable()
            && !DeclaredNotNull.of(haystack.rel(), haystack.names().getFirst(), catalog));
    return NullAwareAntiJoin.notIn(rel, needle.name(), haystack, nullable ? convert(in.haystack(), inside) : null,
        nullable, names);
  }

  /** The EXISTS predicate {@code conjunct} is or negates, or null. */
  private static Expression.SetPredicate exists(Expression conjunct) {
    Expression operand = conjunct;
    if (conjunct instanceof Expression.ScalarFunctionInvocation call && call.declaration().name().equalsIgnoreCase("not")
        && call.arguments().size() == 1 && call.arguments().getFirst() instanceof Expression negated) {
      operand = negated;
    }
    return operand instanceof Expression.SetPredicate set
        && set.predicateOp() == Expression.PredicateOp.PREDICATE_OP_EXISTS ? set : null;
  }

  /** {@code rel} semi-joined ({@code negated}: anti-joined) with the correlated subquery of {@code exists}. */
  private LogicalRel exists(LogicalRel rel, Expression.SetPredicate exists, boolean negated, List<String> outer,
      String here) {
    String inside = here + " (exists)";
    if (!(exists.tuples() instanceof Filter correlated)) {
      throw new UnsupportedPlanException(inside, "EXISTS subquery that is not a filter correlated by field equalities");
    }
    String where = inside + " > filter";
    Decorrelated inner = decorrelate(correlated, outer, where);
    if (inner.outerKeys().isEmpty()) {
      throw new UnsupportedPlanException(where, "EXISTS subquery without an inner field = outer field condition");
    }
    if (inner.comparisons().size() > 1) {
      throw new UnsupportedPlanException(where, "EXISTS subquery correlated by " + inner.comparisons().size()
          + " comparisons beyond its field equalities (at most one: " + inner.comparisons() + ")");
    }
    if (inner.comparisons().size() == 1) {
      CorrelatedComparison comparison = inner.comparisons().getFirst();
      if (!CorrelatedComparison.takes(types.get(comparison.inner()))) {
        throw new UnsupportedPlanException(where, "EXISTS subquery comparing " + comparison.inner() + " with "
            + comparison.outer() + " beyond its key equalities, a type MIN and MAX do not take (only numbers, dates "
            + "and booleans)");
      }
      List<String> outerColumns = new ArrayList<>(inner.outerKeys());
      outerColumns.add(comparison.outer());
      List<String> innerColumns = new ArrayList<>(inner.innerKeys());
      innerColumns.add(comparison.inner());
      boolean outerRowInGroup = DeclaredNotNull.of(rel, comparison.outer(), catalog)
          && OuterRowInSubquery.holds(rel, outerColumns, inner.rel(), innerColumns);
      return comparison.exists(rel, inner.rel(), inner.outerKeys(), inner.innerKeys(), negated, names,
          outerRowInGroup);
    }
    return SemiJoinPlacement.place(rel, negated ? JoinKind.ANTI : JoinKind.SEMI, inner.rel(), inner.outerKeys(),
        inner.innerKeys());
  }

  /**
   * A subquery's filter without its {@code inner field = outer field} conjuncts, which are its key
   * pairs, and its {@code inner field op outer field} comparisons.
   */
  private record Decorrelated(LogicalRel rel, List<String> names, List<String> outerKeys, List<String> innerKeys,
      List<CorrelatedComparison> comparisons) {}

  /**
   * {@code filter}, a subquery's, with its correlation conjuncts taken out as key pairs and
   * comparisons; the other conjuncts filter its input. {@code outer} names the enclosing query's fields.
   *
   * @throws UnsupportedPlanException for an outer reference in any other conjunct
   */
  private Decorrelated decorrelate(Filter filter, List<String> outer, String here) {
    Converted input = convert(filter.getInput(), here);
    ExpressionConverter expressions = new ExpressionConverter(input.names(), here);
    List<String> outerKeys = new ArrayList<>();
    List<String> innerKeys = new ArrayList<>();
    List<Expr> kept = new ArrayList<>();
    List<CorrelatedComparison> comparisons = new ArrayList<>();
    for (Expression conjunct : conjuncts(filter.getCondition())) {
      String[] pair = correlation(conjunct, outer, expressions, here);
      CorrelatedComparison comparison = pair == null ? CorrelatedComparison.of(conjunct, outer, expressions) : null;
      if (pair != null) {
        outerKeys.add(pair[0]);
        innerKeys.add(pair[1]);
      } else if (comparison != null) {
        comparisons.add(comparison);
      } else {
        kept.add(expressions.convert(conjunct)); // an outer reference elsewhere is refused here
      }
    }
    LogicalRel rel = kept.isEmpty() ? input.rel() : new LogicalRel.Filter(input.rel(), Exprs.and(kept));
    return new Decorrelated(rel, input.names(), outerKeys, innerKeys, comparisons);
  }


  /**
   * The outer and inner column of {@code conjunct} when it is {@code inner field = outer field}, or null.
   *
   * @throws UnsupportedPlanException when the two are not of one type a hash join keys on
   */
  private String[] correlation(Expression conjunct, List<String> outer, ExpressionConverter inner, String here) {
    if (!(conjunct instanceof Expression.ScalarFunctionInvocation call)
        || !call.declaration().name().equalsIgnoreCase("equal") || call.arguments().size() != 2
        || !(call.arguments().get(0) instanceof FieldReference a) || !(call.arguments().get(1) instanceof FieldReference b)) {
      return null;
    }
    FieldReference outerSide = isOuterField(a) ? a : isOuterField(b) ? b : null;
    FieldReference innerSide = outerSide == a ? b : a;
    if (outerSide == null || innerSide.isOuterReference()) {
      return null;
    }
    int offset = ((FieldReference.StructField) outerSide.segments().getFirst()).offset();
    if (offset < 0 || offset >= outer.size()) {
      return null;
    }
    String[] pair = {outer.get(offset), inner.column(innerSide)};
    if (!joinable(pair[0], pair[1])) {
      throw new UnsupportedPlanException(here, "correlation on " + pair[1] + " = " + pair[0] + ", columns a hash join "
          + "does not key on (INTEGER, BIGINT or DATE of one type)");
    }
    return pair;
  }

  /** Whether {@code reference} is a field of the query one level out. */
  static boolean isOuterField(FieldReference reference) {
    return reference.isOuterReference() && reference.outerReferenceStepsOut().orElse(0) == 1
        && reference.segments().size() == 1 && reference.segments().getFirst() instanceof FieldReference.StructField;
  }

  /** The operands of {@code condition}'s nested {@code and} calls; the condition itself otherwise. */
  private static List<Expression> conjuncts(Expression condition) {
    List<Expression> parts = new ArrayList<>();
    if (condition instanceof Expression.ScalarFunctionInvocation call
        && call.declaration().name().equalsIgnoreCase("and") && !call.arguments().isEmpty()
        && call.arguments().stream().allMatch(argument -> argument instanceof Expression)) {
      call.arguments().forEach(argument -> parts.addAll(conjuncts((Expression) argument)));
    } else {
      parts.add(condition);
    }
    return parts;
  }

  private Converted project(Project project, String here) {
    return projectOver(project, convert(project.getInput(), here), here);
  }

  private Converted projectOver(Project project, Converted input, String here) {
    ExpressionConverter expressions = new ExpressionConverter(input.names(), here);
    List<NamedExpr> outputs = new ArrayList<>();
    List<String> fields = new ArrayList<>(input.names());
    input.names().forEach(name -> outputs.add(Expr.col(name).as(name)));
    for (Expression expression : project.getExpressions()) {
      Expr value = expressions.convert(expression);
      // a field passed on keeps its name; a repeat is renamed by the emit, or below when there is none
      String name = value instanceof Expr.ColumnRef ref ? ref.name() : typed(names.fresh("expr"), expression.getType());
      outputs.add(value.as(name));
      fields.add(name);
    }
    return new Converted(new LogicalRel.Project(input.rel(), outputs), fields);
  }

  private Converted aggregate(io.substrait.relation.Aggregate aggregate, String here) {
    return aggregateOver(aggregate, convert(aggregate.getInput(), here), here);
  }

  private Converted aggregateOver(io.substrait.relation.Aggregate aggregate, Converted input, String here) {
    ExpressionConverter expressions = new ExpressionConverter(input.names(), here);
    if (aggregate.getGroupings().size() > 1) {
      throw new UnsupportedPlanException(here, aggregate.getGroupings().size()
          + " grouping sets (only one: GROUPING SETS, ROLLUP and CUBE are not supported)");
    }
    List<NamedExpr> keys = new ArrayList<>();
    List<String> fields = new ArrayList<>();
    Set<String> taken = new HashSet<>();
    if (!aggregate.getGroupings().isEmpty()) {
      for (Expression expression : aggregate.getGroupings().getFirst().getExpressions()) {
        Expr key = expressions.convert(expression);
        String name = key instanceof Expr.ColumnRef ref && taken.add(ref.name()) ? ref.name()
            : typed(names.fresh("key"), expression.getType());
        keys.add(key.as(name));
        fields.add(name);
      }
    }
    List<Aggregate> measures = new ArrayList<>();
    List<Boolean> distinct = new ArrayList<>();
    for (io.substrait.relation.Aggregate.Measure measure : aggregate.getMeasures()) {
      String name = typed(names.fresh("agg"), measure.getFunction().getType());
      measures.add(measure(measure, expressions, name, here));
      distinct.add(measure.getFunction().invocation() == Expression.AggregationInvocation.DISTINCT);
      fields.add(name);
    }
    if (keys.isEmpty() && measures.isEmpty()) {
      throw new UnsupportedPlanException(here, "an aggregate without groupings or measures");
    }
    return new Converted(distinct.contains(true) ? DistinctAggregation.plan(input.rel(), keys, measures, distinct, names,
        here) : new LogicalRel.Aggregation(input.rel(), keys, measures), fields);
  }

  private static Aggregate measure(io.substrait.relation.Aggregate.Measure measure, ExpressionConverter expressions,
      String name, String here) {
    AggregateFunctionInvocation call = measure.getFunction();
    String function = call.declaration().name().toLowerCase(Locale.ROOT);
    if (measure.getPreMeasureFilter().isPresent()) {
      throw new UnsupportedPlanException(here, "aggregate function '" + function + "' with a filter");
    }
    if (call.aggregationPhase() != Expression.AggregationPhase.INITIAL_TO_RESULT) {
      throw new UnsupportedPlanException(here, "aggregate function '" + function + "' in phase "
          + call.aggregationPhase() + " (only INITIAL_TO_RESULT)");
    }
    List<FunctionArg> args = call.arguments();
    if (function.equals("count") && args.isEmpty() && call.invocation() != Expression.AggregationInvocation.DISTINCT) {
      return Aggregate.countStar(name);
    }
    if (args.size() != 1 || !(args.getFirst() instanceof Expression argument)) {
      throw new UnsupportedPlanException(here, "aggregate function '" + function + "' with " + args.size()
          + " arguments");
    }
    Expr value = expressions.convert(argument);
    return switch (function) {
      case "sum" -> Aggregate.sum(value, name);
      case "avg" -> Aggregate.avg(value, name);
      case "min" -> Aggregate.min(value, name);
      case "max" -> Aggregate.max(value, name);
      case "count" -> Aggregate.count(value, name);
      default -> throw new UnsupportedPlanException(here, "aggregate function '" + function + "'");
    };
  }

  private Converted sort(Sort sort, String here) {
    Converted input = convert(sort.getInput(), here);
    ExpressionConverter expressions = new ExpressionConverter(input.names(), here);
    List<SortKey> keys = new ArrayList<>();
    for (Expression.SortField field : sort.getSortFields()) {
      if (!(field.expr() instanceof FieldReference reference)) {
        throw new UnsupportedPlanException(here, "sort by an expression (only by fields)");
      }
      String column = expressions.column(reference);
      keys.add(switch (field.direction()) {
        case ASC_NULLS_FIRST -> SortKey.asc(column).withNullsFirst();
        case ASC_NULLS_LAST -> SortKey.asc(column);
        case DESC_NULLS_FIRST -> SortKey.desc(column).withNullsFirst();
        case DESC_NULLS_LAST -> SortKey.desc(column);
        case CLUSTERED -> throw new UnsupportedPlanException(here, "sort direction CLUSTERED");
      });
    }
    return new Converted(new LogicalRel.Sort(input.rel(), keys), input.names());
  }

  private Converted fetch(Fetch fetch, String here) {
    if (fetch.getOffset() != 0) {
      throw new UnsupportedPlanException(here, "fetch with offset " + fetch.getOffset() + " (only a row count)");
    }
    Converted input = convert(fetch.getInput(), here);
    return fetch.getCount().isPresent()
        ? new Converted(EmptyLimit.of(input.rel(), fetch.getCount().getAsLong()), input.names())
        : input;
  }

  private Converted join(Join join, String here) {
    Join.JoinType type = join.getJoinType();
    boolean turned = type == Join.JoinType.RIGHT || type == Join.JoinType.RIGHT_SEMI
        || type == Join.JoinType.RIGHT_ANTI;
    JoinKind kind = switch (type) {
      case INNER -> JoinKind.INNER;
      case LEFT, RIGHT -> JoinKind.LEFT_OUTER;
      case LEFT_SEMI, RIGHT_SEMI, SEMI -> JoinKind.SEMI;
      case LEFT_ANTI, RIGHT_ANTI, ANTI -> JoinKind.ANTI;
      default -> throw new UnsupportedPlanException(here, "join type " + type);
    };
    if (join.getPostJoinFilter().isPresent()) {
      throw new UnsupportedPlanException(here, "join with a post-join filter");
    }
    Converted left = convert(join.getLeft(), here + " (left)");
    Converted right = convert(join.getRight(), here + " (right)");
    List<String> fields = switch (type) {
      case LEFT_SEMI, LEFT_ANTI, SEMI, ANTI -> left.names();
      case RIGHT_SEMI, RIGHT_ANTI -> right.names();
      default -> concat(left.names(), right.names());
    };
    Converted preserved = turned ? right : left;
    Converted other = turned ? left : right;
    if (join.getCondition().isEmpty()) {
      throw new UnsupportedPlanException(here, "join without a condition");
    }
    Expr condition = new ExpressionConverter(concat(left.names(), right.names()), here)
        .convert(join.getCondition().get());
    Set<String> preservedColumns = new HashSet<>(preserved.rel().columns());
    Set<String> otherColumns = new HashSet<>(other.rel().columns());
    List<String> preservedKeys = new ArrayList<>();
    List<String> otherKeys = new ArrayList<>();
    List<Expr> otherSide = new ArrayList<>();
    List<Expr> residual = new ArrayList<>();
    for (Expr conjunct : Exprs.conjuncts(condition)) {
      if (conjunct instanceof Expr.Comparison c && c.op() == Expr.ComparisonOp.EQ
          && c.left() instanceof Expr.ColumnRef a && c.right() instanceof Expr.ColumnRef b) {
        if (preservedColumns.contains(a.name()) && otherColumns.contains(b.name()) && joinable(a.name(), b.name())) {
          preservedKeys.add(a.name());
          otherKeys.add(b.name());
          continue;
        }
        if (preservedColumns.contains(b.name()) && otherColumns.contains(a.name()) && joinable(a.name(), b.name())) {
          preservedKeys.add(b.name());
          otherKeys.add(a.name());
          continue;
        }
      }
      if (kind != JoinKind.INNER && otherColumns.containsAll(Exprs.columns(conjunct))) {
        otherSide.add(conjunct);
      } else {
        residual.add(conjunct);
      }
    }
    if (preservedKeys.isEmpty()) {
      if (kind != JoinKind.INNER) {
        throw new UnsupportedPlanException(here, "join type " + type + " without a field = field condition across "
            + "its inputs");
      }
      LogicalRel cross = new LogicalRel.Cross(left.rel(), right.rel());
      return new Converted(new LogicalRel.Filter(cross, condition), fields);
    }
    if (kind != JoinKind.INNER && !residual.isEmpty()) {
      throw new UnsupportedPlanException(here, "join type " + type + " with a condition beyond field equalities "
          + "that reads its preserved input: " + residual);
    }
    LogicalRel build = otherSide.isEmpty() ? other.rel() : new LogicalRel.Filter(other.rel(), Exprs.and(otherSide));
    LogicalRel joined = new LogicalRel.Join(kind, preserved.rel(), build, preservedKeys, otherKeys);
    if (!residual.isEmpty()) {
      joined = new LogicalRel.Filter(joined, Exprs.and(residual));
    }
    return new Converted(joined, fields);
  }

  /** {@code converted}'s fields reordered (or repeated, or dropped) as {@code indices} say. */
  private Converted remap(Converted converted, List<Integer> indices, String here) {
    List<NamedExpr> outputs = new ArrayList<>();
    List<String> fields = new ArrayList<>();
    Set<String> taken = new HashSet<>();
    for (int index : indices) {
      if (index < 0 || index >= converted.names().size()) {
        throw new UnsupportedPlanException(here, "emit of field " + index + " of " + converted.names().size());
      }
      String source = converted.names().get(index);
      String name = taken.add(source) ? source : names.fresh(source);
      if (types.containsKey(source)) {
        types.putIfAbsent(name, types.get(source));
      }
      outputs.add(Expr.col(source).as(name));
      fields.add(name);
    }
    if (converted.rel() instanceof LogicalRel.Project project) { // emit of a project: keep only what it emits
      List<NamedExpr> kept = new ArrayList<>();
      for (int i = 0; i < indices.size(); i++) {
        kept.add(project.outputs().get(indices.get(i)).expr().as(fields.get(i)));
      }
      return new Converted(new LogicalRel.Project(project.input(), kept), fields);
    }
    return new Converted(new LogicalRel.Project(converted.rel(), outputs), fields);
  }

  private static List<String> concat(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }
}
