package dev.memwall.substrait.optimizer;

import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.List;

/**
 * A join's build side reduced to the keys its probe side can match: TPC-H Q9 joins lineitem of the
 * chosen parts ({@code l_partkey = p_partkey}, part filtered) to partsupp on {@code ps_partkey =
 * l_partkey}; only partsupp rows of the chosen parts can match, so partsupp is semi joined to the
 * chosen parts before it is hashed, as the hand-written plan joins both to them.
 *
 * <pre>
 * inner join on p = b                    =&gt;   inner join on p = b
 *   probe (with an inner join p = f to F)       probe
 *   build (b a column of its leaf B)            build with B replaced by: semi join B, F on b = f
 * </pre>
 *
 * <p>Every row of the probe side has {@code p} equal to {@code f} of a row of F when the probe side
 * reaches the inner join on {@code p = f} through filters and inner joins (and the preserved side of
 * semi, anti and left outer joins), so a build row whose {@code b} is no {@code f} of F matches no
 * probe row, and dropping it changes no row of the result; a null {@code b} matches nothing either
 * way. B is the input of the build side holding {@code b}, reached through filters and inner joins.
 * F is read once more for it, so it is done where F is not a plain scan (a whole table reduces
 * nothing), the semi join is estimated to keep at most half of B, and the tables F reads are no
 * larger than B's estimate. Stateless and thread-safe when the estimator is.
 */
public final class BuildSideReduction {
  private final CardinalityEstimator estimator;

  private BuildSideReduction(CardinalityEstimator estimator) {
    this.estimator = estimator;
  }

  /** {@code rel} with the build side of each inner join reduced where that shape allows; the same rows. */
  public static LogicalRel rewrite(LogicalRel rel, CardinalityEstimator estimator) {
    BuildSideReduction rewrite = new BuildSideReduction(estimator);
    return Rebuild.eachNode(rel, node -> node instanceof LogicalRel.Join join && join.kind() == JoinKind.INNER
        ? rewrite.reduce(join) : node);
  }

  private LogicalRel reduce(LogicalRel.Join join) {
    LogicalRel build = join.right();
    for (int i = 0; i < join.leftKeys().size(); i++) {
      Partner partner = partner(join.left(), join.leftKeys().get(i));
      if (partner != null) {
        LogicalRel reduced = reduceLeaf(build, join.rightKeys().get(i), partner);
        build = reduced == null ? build : reduced;
      }
    }
    return build == join.right() ? join
        : new LogicalRel.Join(JoinKind.INNER, join.left(), build, join.leftKeys(), join.rightKeys());
  }

  /** An input F of the probe side and its column f that every probe row's {@code column} equals. */
  private record Partner(LogicalRel input, String column) {}

  private static Partner partner(LogicalRel rel, String column) {
    return switch (rel) {
      case LogicalRel.Filter filter -> partner(filter.input(), column);
      case LogicalRel.Join join when join.kind() == JoinKind.INNER -> {
        for (int i = 0; i < join.leftKeys().size(); i++) {
          String left = join.leftKeys().get(i);
          String right = join.rightKeys().get(i);
          if (left.equals(column) && !(join.right() instanceof LogicalRel.Scan)
              && join.right().columns().contains(right)) {
            yield new Partner(join.right(), right);
          }
          if (right.equals(column) && !(join.left() instanceof LogicalRel.Scan)
              && join.left().columns().contains(left)) {
            yield new Partner(join.left(), left);
          }
        }
        yield join.left().columns().contains(column) ? partner(join.left(), column) : partner(join.right(), column);
      }
      case LogicalRel.Join join -> join.left().columns().contains(column) ? partner(join.left(), column) : null;
      default -> null;
    };
  }

  /** {@code build} with its input holding {@code column} semi joined to the partner, or null where that does not pay. */
  private LogicalRel reduceLeaf(LogicalRel build, String column, Partner partner) {
    return switch (build) {
      case LogicalRel.Filter filter -> {
        LogicalRel reduced = reduceLeaf(filter.input(), column, partner);
        yield reduced == null ? null : new LogicalRel.Filter(reduced, filter.condition());
      }
      case LogicalRel.Join join when join.kind() == JoinKind.INNER -> {
        boolean left = join.left().columns().contains(column);
        LogicalRel reduced = reduceLeaf(left ? join.left() : join.right(), column, partner);
        yield reduced == null ? null : left
            ? new LogicalRel.Join(JoinKind.INNER, reduced, join.right(), join.leftKeys(), join.rightKeys())
            : new LogicalRel.Join(JoinKind.INNER, join.left(), reduced, join.leftKeys(), join.rightKeys());
      }
      case LogicalRel.Scan scan -> {
        if (!scan.columns().contains(column)) {
          yield null;
        }
        LogicalRel semi = new LogicalRel.Join(JoinKind.SEMI, scan, partner.input(), List.of(column),
            List.of(partner.column()));
        double rows = estimator.of(scan).rows();
        yield estimator.of(semi).rows() <= SharedAggregateInput.MOST_SHARED * rows
            && tableRows(partner.input()) <= rows ? semi : null;
      }
      default -> null;
    };
  }

  /** The estimated rows of the tables {@code rel} scans, together. */
  private double tableRows(LogicalRel rel) {
    double[] rows = {0};
    Rebuild.eachNode(rel, inner -> {
      if (inner instanceof LogicalRel.Scan scan) {
        rows[0] += estimator.of(scan).rows();
      }
      return inner;
    });
    return rows[0];
  }
}
