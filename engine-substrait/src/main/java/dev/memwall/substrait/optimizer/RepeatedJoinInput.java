package dev.memwall.substrait.optimizer;

import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.function.IntSupplier;

/**
 * An inner join's probe side computed once where its build side computes it again: TPC-H Q20's
 * partsupp rows of the chosen parts are joined to the shipped quantities of their lineitems, which
 * a semi join reduced to those same partsupp rows, planned as an equal copy of them. The probe side
 * becomes a {@link LogicalRel.Shared} relation, computed once, and the copies in the build side read
 * it. The plan's rows are unchanged: equal nodes (the same reads of the
 * same tables under the same names, the same filters and joins) have the same rows.
 *
 * <p>It is done where the probe side is not a scan, filtered or not (re-reading a table costs about
 * what holding the rows it keeps does), and is estimated at most half the rows of the largest table it reads, for the same reason.
 * Stateless and thread-safe when the estimator is.
 */
public final class RepeatedJoinInput {
  private RepeatedJoinInput() {}

  /**
   * {@code rel} with each inner join of that kind, at any depth, reading its probe side once; the same rows.
   *
   * @param ids gives each new shared relation its id
   */
  public static LogicalRel rewrite(LogicalRel rel, CardinalityEstimator estimator, IntSupplier ids) {
    return Rebuild.eachNode(rel, node -> node instanceof LogicalRel.Join join && join.kind() == JoinKind.INNER
        && !filteredScan(join.left()) && repeats(join.right(), join.left())
        && estimator.of(join.left()).rows() <= SharedAggregateInput.MOST_SHARED * largestTable(join.left(), estimator)
        ? shared(join, ids) : node);
  }

  /** {@code join} with its probe side shared and read by the build side where that repeats it. */
  private static LogicalRel shared(LogicalRel.Join join, IntSupplier ids) {
    LogicalRel probe = Rebuild.shared(join.left(), ids);
    return new LogicalRel.Join(JoinKind.INNER, probe, Rebuild.eachNode(join.right(),
        inner -> inner.equals(join.left()) ? probe : inner), join.leftKeys(), join.rightKeys());
  }

  /** Whether {@code rel} is a scan, possibly filtered: reading it again costs what holding its rows would. */
  private static boolean filteredScan(LogicalRel rel) {
    return rel instanceof LogicalRel.Scan || rel instanceof LogicalRel.Filter filter && filteredScan(filter.input());
  }

  /** Whether {@code rel} holds a node equal to {@code node}. */
  static boolean repeats(LogicalRel rel, LogicalRel node) {
    boolean[] found = {false};
    Rebuild.eachNode(rel, inner -> {
      found[0] |= inner.equals(node);
      return inner;
    });
    return found[0];
  }

  /** The estimated rows of the largest table {@code rel} scans. */
  static double largestTable(LogicalRel rel, CardinalityEstimator estimator) {
    double[] largest = {0};
    Rebuild.eachNode(rel, inner -> {
      if (inner instanceof LogicalRel.Scan scan) {
        largest[0] = Math.max(largest[0], estimator.of(scan).rows());
      }
      return inner;
    });
    return largest[0];
  }
}
