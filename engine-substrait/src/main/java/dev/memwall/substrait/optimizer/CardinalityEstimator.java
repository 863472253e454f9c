package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Estimated row counts and column statistics of logical plans, for ordering joins and choosing
 * build sides. A scan has its table's {@link TableStatistics}; a filter keeps a fraction of its
 * input: for {@code column op literal}, from the column's range with values taken as uniform
 * (bounds on one column within an AND are intersected first), {@code 1/distinct} for an equality
 * and {@code k/distinct} for {@code IN} of k literals; without statistics, or for other
 * conditions, the textbook defaults ({@link #EQUALITY}, {@link #RANGE}, {@link #OTHER}). AND
 * multiplies fractions, OR combines them as independent. An equi-join gives {@code |R||S| /
 * max(distinct(R.a), distinct(S.b))} with the most selective key pair (the others are taken as
 * implied by it, which overestimates rather than underestimates a composite key); a join on a key
 * of one side (its distinct count near its rows) is a foreign-key join and gives at most the other
 * side's rows. Columns keep their statistics through operators, their distinct counts reduced as
 * rows are (Cardenas' formula).
 *
 * <p>Statistics are asked for column by column, so a plan's estimate scans only the columns its
 * joins and filters read ({@link TableStatistics#collected}). Thread-safe when its statistics
 * function is.
 */
public final class CardinalityEstimator {
  /** The fraction an equality keeps without statistics. */
  static final double EQUALITY = 0.1;
  /** The fraction a range comparison keeps without statistics. */
  static final double RANGE = 1.0 / 3;
  /** The fraction any other condition keeps. */
  static final double OTHER = 0.25;
  /** A column whose distinct count is at least this fraction of its rows is taken as a key. */
  static final double KEY = 0.9;

  /** Rows and column statistics of a plan, by the plan's column names. */
  public record Estimate(double rows, Function<String, Optional<ColumnStatistics>> columns) {
    /** The statistics of column {@code name}, if known. */
    public Optional<ColumnStatistics> column(String name) {
      return columns.apply(name);
    }

    /** This estimate for {@code fewer} of its rows, kept uniformly. */
    Estimate reduced(double fewer) {
      double from = rows;
      return new Estimate(fewer, name -> columns.apply(name).map(c -> c.scaled(fewer, from)));
    }
  }

  private final Function<LogicalRel.Scan, TableStatistics> statistics;

  /** An estimator reading each scan's statistics from {@code statistics}. */
  public CardinalityEstimator(Function<LogicalRel.Scan, TableStatistics> statistics) {
    this.statistics = statistics;
  }

  /** The estimate of {@code rel}. */
  public Estimate of(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Scan scan -> {
        TableStatistics table = statistics.apply(scan);
        yield new Estimate(table.rows(), name -> {
          String stored = scan.tableColumn(name);
          return stored == null ? Optional.empty() : table.column(stored);
        });
      }
      case LogicalRel.Filter filter -> filter(of(filter.input()), filter.condition());
      case LogicalRel.Project project -> {
        Estimate input = of(project.input());
        Map<String, String> renamed = new HashMap<>();
        for (NamedExpr output : project.outputs()) {
          if (output.expr() instanceof Expr.ColumnRef ref) {
            renamed.put(output.name(), ref.name());
          }
        }
        yield new Estimate(input.rows(), name -> renamed.containsKey(name) ? input.column(renamed.get(name))
            : Optional.empty());
      }
      case LogicalRel.Aggregation aggregation -> aggregation(aggregation, of(aggregation.input()));
      case LogicalRel.Sort sort -> of(sort.input());
      case LogicalRel.Limit limit -> {
        Estimate input = of(limit.input());
        yield input.reduced(Math.min(limit.rows(), input.rows()));
      }
      case LogicalRel.Join join -> {
        Estimate left = of(join.left());
        Estimate right = of(join.right());
        Estimate inner = join(left, right, join.leftKeys(), join.rightKeys());
        yield switch (join.kind()) {
          case INNER -> inner;
          case LEFT_OUTER -> inner.rows() >= left.rows() ? inner : new Estimate(left.rows(), inner.columns());
          case SEMI -> left.reduced(left.rows() * matching(left, right, join.leftKeys(), join.rightKeys()));
          case ANTI -> left.reduced(left.rows() * Math.max(OTHER, 1 - matching(left, right, join.leftKeys(),
              join.rightKeys())));
        };
      }
      case LogicalRel.Cross cross -> {
        Estimate left = of(cross.left());
        Estimate right = of(cross.right());
        yield new Estimate(left.rows() * right.rows(), either(left, right));
      }
      case LogicalRel.Shared shared -> of(shared.input());
    };
  }

  /** {@code input} filtered by {@code condition}. */
  public Estimate filter(Estimate input, Expr condition) {
    Estimate kept = input.reduced(Math.max(Math.min(1, input.rows()), input.rows() * selectivity(input, condition)));
    List<String> fixed = new ArrayList<>();
    for (Expr conjunct : conjuncts(condition)) {
      if (conjunct instanceof Expr.Comparison c && c.op() == Expr.ComparisonOp.EQ
          && ((c.left() instanceof Expr.ColumnRef && c.right() instanceof Expr.Literal)
              || (c.right() instanceof Expr.ColumnRef && c.left() instanceof Expr.Literal))) {
        fixed.add(((Expr.ColumnRef) (c.left() instanceof Expr.ColumnRef ? c.left() : c.right())).name());
      }
    }
    if (fixed.isEmpty()) {
      return kept;
    }
    return new Estimate(kept.rows(), name -> kept.column(name).map(c -> fixed.contains(name)
        ? new ColumnStatistics(Math.min(1, c.distinct()), 0, c.min(), c.max(), c.scale()) : c));
  }

  /**
   * The inner equi-join of {@code left} and {@code right} on {@code leftKeys[i] = rightKeys[i]}.
   */
  public Estimate join(Estimate left, Estimate right, List<String> leftKeys, List<String> rightKeys) {
    double divisor = 1;
    boolean leftKey = false;
    boolean rightKey = false;
    for (int i = 0; i < leftKeys.size(); i++) {
      Optional<ColumnStatistics> l = left.column(leftKeys.get(i));
      Optional<ColumnStatistics> r = right.column(rightKeys.get(i));
      double distinctLeft = l.map(ColumnStatistics::distinct).orElse(left.rows());
      double distinctRight = r.map(ColumnStatistics::distinct).orElse(right.rows());
      divisor = Math.max(divisor, Math.max(distinctLeft, distinctRight));
      leftKey |= l.isPresent() && distinctLeft >= KEY * left.rows();
      rightKey |= r.isPresent() && distinctRight >= KEY * right.rows();
    }
    double rows = left.rows() * right.rows() / divisor;
    if (rightKey) { // a foreign key of left meets its key: each left row matches at most once
      rows = Math.min(rows, left.rows());
    }
    if (leftKey) {
      rows = Math.min(rows, right.rows());
    }
    double joined = Math.max(Math.min(1, left.rows() * right.rows()), rows);
    Estimate l = left.reduced(Math.min(joined, left.rows()));
    Estimate r = right.reduced(Math.min(joined, right.rows()));
    return new Estimate(joined, either(l, r));
  }

  /** The fraction of {@code input}'s rows {@code condition} keeps, in [0, 1]. */
  double selectivity(Estimate input, Expr condition) {
    return switch (condition) {
      case Expr.And and -> conjunction(input, and.operands());
      case Expr.Or or -> {
        double none = 1;
        for (Expr operand : or.operands()) {
          none *= 1 - selectivity(input, operand);
        }
        yield 1 - none;
      }
      case Expr.Not not -> 1 - selectivity(input, not.operand());
      case Expr.Comparison c -> comparison(input, c);
      case Expr.InList in -> in.input() instanceof Expr.ColumnRef ref
          ? Math.min(1, in.values().size() * equality(input, ref.name())) : Math.min(1, in.values().size() * EQUALITY);
      case Expr.IsNull isNull -> isNull.input() instanceof Expr.ColumnRef ref && input.rows() > 0
          ? input.column(ref.name()).map(c -> Math.min(1, c.nulls() / input.rows())).orElse(EQUALITY) : EQUALITY;
      case Expr.Literal literal -> Boolean.TRUE.equals(literal.value()) || Long.valueOf(1).equals(literal.value())
          ? 1 : OTHER;
      default -> OTHER;
    };
  }

  private double conjunction(Estimate input, List<Expr> operands) {
    double kept = 1;
    Map<String, double[]> bounds = new HashMap<>(); // column -> {lower, upper}, real values
    for (Expr operand : operands) {
      Bound bound = bound(input, operand);
      if (bound == null) {
        kept *= selectivity(input, operand);
        continue;
      }
      double[] range = bounds.computeIfAbsent(bound.column(), c -> new double[] {Double.NEGATIVE_INFINITY,
          Double.POSITIVE_INFINITY});
      if (bound.lower()) {
        range[0] = Math.max(range[0], bound.value());
      } else {
        range[1] = Math.min(range[1], bound.value());
      }
    }
    for (Map.Entry<String, double[]> range : bounds.entrySet()) {
      ColumnStatistics column = input.column(range.getKey()).orElseThrow();
      kept *= nonNull(input, column) * fraction(column, range.getValue()[0], range.getValue()[1]);
    }
    return kept;
  }

  private double comparison(Estimate input, Expr.Comparison c) {
    Bound bound = bound(input, c);
    if (bound != null) {
      ColumnStatistics column = input.column(bound.column()).orElseThrow();
      return nonNull(input, column) * (bound.lower() ? fraction(column, bound.value(), Double.POSITIVE_INFINITY)
          : fraction(column, Double.NEGATIVE_INFINITY, bound.value()));
    }
    String column = c.left() instanceof Expr.ColumnRef ref ? ref.name()
        : c.right() instanceof Expr.ColumnRef ref ? ref.name() : null;
    return switch (c.op()) {
      case EQ -> {
        if (c.left() instanceof Expr.ColumnRef a && c.right() instanceof Expr.ColumnRef b) {
          yield Math.min(equality(input, a.name()), equality(input, b.name()));
        }
        yield column == null ? EQUALITY : equality(input, column);
      }
      case NE -> 1 - (column == null ? EQUALITY : equality(input, column));
      default -> RANGE;
    };
  }

  private static double equality(Estimate input, String column) {
    return input.column(column).filter(c -> c.distinct() >= 1).map(c -> nonNull(input, c) / c.distinct())
        .orElse(EQUALITY);
  }

  /** A bound {@code column >= value} (lower) or {@code column <= value} on a column with a range. */
  private record Bound(String column, boolean lower, double value) {}

  /** {@code condition} as a bound when it compares a ranged column with a number or date literal. */
  private static Bound bound(Estimate input, Expr condition) {
    if (!(condition instanceof Expr.Comparison c)) {
      return null;
    }
    Expr.ComparisonOp op = c.op();
    Expr columnSide = c.left();
    Expr literalSide = c.right();
    if (c.left() instanceof Expr.Literal) {
      columnSide = c.right();
      literalSide = c.left();
      op = switch (op) {
        case LT -> Expr.ComparisonOp.GT;
        case LE -> Expr.ComparisonOp.GE;
        case GT -> Expr.ComparisonOp.LT;
        case GE -> Expr.ComparisonOp.LE;
        default -> op;
      };
    }
    if (!(columnSide instanceof Expr.ColumnRef ref) || !(literalSide instanceof Expr.Literal literal)
        || !(literal.value() instanceof Number number)) {
      return null;
    }
    Optional<ColumnStatistics> column = input.column(ref.name()).filter(ColumnStatistics::hasRange);
    if (column.isEmpty()) {
      return null;
    }
    int scale = literal.type().kind() == ColumnType.Kind.DECIMAL ? literal.type().scale() : 0;
    double value = number.doubleValue() / Math.pow(10, scale);
    return switch (op) {
      case GT, GE -> new Bound(ref.name(), true, value);
      case LT, LE -> new Bound(ref.name(), false, value);
      default -> null;
    };
  }

  /** The fraction of {@code input}'s rows where {@code column} is not null (a comparison with null is not true). */
  private static double nonNull(Estimate input, ColumnStatistics column) {
    return input.rows() <= 0 ? 1 : Math.max(0, 1 - column.nulls() / input.rows());
  }

  /** The fraction of a column's non-null values in {@code [lower, upper]} (real values), taken as uniform. */
  private static double fraction(ColumnStatistics column, double lower, double upper) {
    double unit = Math.pow(10, column.scale());
    double min = column.min() / unit;
    double max = column.max() / unit;
    double low = Math.max(lower, min);
    double high = Math.min(upper, max);
    if (high < low) {
      return 0;
    }
    return max == min ? 1 : Math.min(1, (high - low) / (max - min));
  }

  /** The fraction of left rows whose keys some right row has, the smaller key set taken as contained. */
  private static double matching(Estimate left, Estimate right, List<String> leftKeys, List<String> rightKeys) {
    double fraction = 1;
    for (int i = 0; i < leftKeys.size(); i++) {
      Optional<ColumnStatistics> l = left.column(leftKeys.get(i));
      Optional<ColumnStatistics> r = right.column(rightKeys.get(i));
      if (l.isEmpty() || r.isEmpty() || l.get().distinct() <= 0) {
        return 0.5;
      }
      fraction = Math.min(fraction, r.get().distinct() / l.get().distinct());
    }
    return Math.min(1, fraction);
  }

  private Estimate aggregation(LogicalRel.Aggregation aggregation, Estimate input) {
    if (aggregation.keys().isEmpty()) {
      return new Estimate(1, name -> Optional.empty());
    }
    double groups = 1;
    Map<String, String> keys = new HashMap<>();
    for (NamedExpr key : aggregation.keys()) {
      Optional<ColumnStatistics> column = key.expr() instanceof Expr.ColumnRef ref ? input.column(ref.name())
          : Optional.empty();
      groups *= column.map(c -> Math.max(1, c.distinct())).orElse(Math.max(1, input.rows() / 10));
      if (key.expr() instanceof Expr.ColumnRef ref) {
        keys.put(key.name(), ref.name());
      }
    }
    double rows = Math.max(Math.min(1, input.rows()), Math.min(groups, input.rows()));
    return new Estimate(rows, name -> keys.containsKey(name)
        ? input.column(keys.get(name)).map(c -> new ColumnStatistics(Math.min(c.distinct(), rows),
            Math.min(c.nulls(), 1), c.min(), c.max(), c.scale()))
        : Optional.empty());
  }

  private static Function<String, Optional<ColumnStatistics>> either(Estimate left, Estimate right) {
    return name -> {
      Optional<ColumnStatistics> found = left.column(name);
      return found.isPresent() ? found : right.column(name);
    };
  }

  private static List<Expr> conjuncts(Expr condition) {
    return condition instanceof Expr.And and ? and.operands() : List.of(condition);
  }
}
