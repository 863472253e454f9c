package dev.memwall.substrait.optimizer;

import dev.memwall.substrait.logical.LogicalRel;

/**
 * Rough row counts of logical plans, for choosing join orders and build sides: a table's row count,
 * a fixed fraction of it per filter, a tenth of the input per grouped aggregation, the larger input
 * of an equi-join (a foreign key meeting its key), the product of a cross. No statistics beyond the
 * row counts yet; the estimates only need to order the inputs of TPC-H-shaped joins sensibly.
 */
final class RowEstimate {
  /** The fraction of its input a filter is taken to keep. */
  static final double FILTER_FRACTION = 0.25;

  private RowEstimate() {}

  static double of(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Scan scan -> scan.source().rowCount();
      case LogicalRel.Filter filter -> of(filter.input()) * FILTER_FRACTION;
      case LogicalRel.Project project -> of(project.input());
      case LogicalRel.Aggregation aggregation -> aggregation.keys().isEmpty() ? 1 : Math.max(1, of(aggregation.input()) / 10);
      case LogicalRel.Sort sort -> of(sort.input());
      case LogicalRel.Limit limit -> Math.min(limit.rows(), of(limit.input()));
      case LogicalRel.Join join -> switch (join.kind()) {
        case INNER, LEFT_OUTER -> Math.max(of(join.left()), of(join.right()));
        case SEMI, ANTI -> of(join.left());
      };
      case LogicalRel.Cross cross -> of(cross.left()) * of(cross.right());
    };
  }
}
