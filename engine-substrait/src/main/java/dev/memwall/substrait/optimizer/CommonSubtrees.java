package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * A subtree computed twice is computed once: a subquery that repeats its outer query's FROM and
 * WHERE (TPC-H Q11's total over the same joined rows the outer query groups) arrives as two copies
 * of one join whose columns have different names. Two subtrees are the same as {@link
 * CommonAggregations} decides it: node by node the same operators over the same tables with the
 * same expressions once the second's column names are read as the first's. The largest repeated
 * subtree becomes a {@link LogicalRel.Shared} relation, which keeps only the columns the plan reads
 * above its copies, and every other copy a project of it renaming those columns to the copy's
 * names; equal nodes have equal rows, so the plan's rows are unchanged. Repeated further, smaller
 * subtrees repeated elsewhere are shared too.
 *
 * <p>A subtree is shared only where it joins, aggregates or matches a LIKE pattern over tables
 * larger than one chunk (a scan filtered otherwise, or tables of a chunk, cost about as much to
 * read again as to hold; TPC-H Q20's parts named like a color are found once, not twice), where its
 * rows' order is not one its readers could see (a sort, possibly under projects, filters and
 * limits: a shared result is read back in no particular order), and, unless it is an aggregation,
 * whose result is materialized anyway, where its estimate is at most half the rows of the largest
 * table it reads, since holding most of a large join costs about what computing it again does.
 * Subtrees under a shared relation already are left alone. Stateless and thread-safe when the
 * estimator is.
 */
public final class CommonSubtrees {
  private CommonSubtrees() {}

  /**
   * {@code rel} with repeated subtrees shared; the same rows.
   *
   * @param ids gives each new shared relation its id
   */
  public static LogicalRel rewrite(LogicalRel rel, CardinalityEstimator estimator, IntSupplier ids) {
    LogicalRel at = rel;
    while (true) {
      List<Candidate> found = new ArrayList<>();
      collect(at, found, false);
      found.sort(Comparator.comparingInt(Candidate::size).reversed());
      Map<LogicalRel, LogicalRel> replaced = shareFirst(at, found, estimator, ids);
      if (replaced.isEmpty()) {
        return at;
      }
      at = CommonAggregations.replace(at, replaced);
    }
  }

  /** A node worth sharing and its size in nodes. */
  private record Candidate(LogicalRel rel, int size) {}

  /**
   * The replacements sharing the largest repeated candidate among {@code found} (sorted largest
   * first) with all its copies; empty if none repeats.
   */
  private static Map<LogicalRel, LogicalRel> shareFirst(LogicalRel root, List<Candidate> found,
      CardinalityEstimator estimator, IntSupplier ids) {
    for (int i = 0; i < found.size(); i++) {
      LogicalRel first = found.get(i).rel();
      List<LogicalRel> copies = new ArrayList<>();
      List<Map<String, String>> renamings = new ArrayList<>();
      boolean readTwice = false;
      for (int j = i + 1; j < found.size() && found.get(j).size() == found.get(i).size(); j++) {
        LogicalRel other = found.get(j).rel();
        Map<String, String> names = new HashMap<>();
        if (other == first) {
          readTwice = true; // one node read at two places of the plan
        } else if (copies.stream().noneMatch(copy -> copy == other) && CommonAggregations.same(first, other, names)) {
          copies.add(other);
          renamings.add(names);
        }
      }
      if ((readTwice || !copies.isEmpty()) && pays(first, estimator)) {
        return shared(root, first, copies, renamings, ids);
      }
    }
    return Map.of();
  }

  /** {@code first} shared, keeping the columns read above any copy, and each copy reading it renamed. */
  private static Map<LogicalRel, LogicalRel> shared(LogicalRel root, LogicalRel first, List<LogicalRel> copies,
      List<Map<String, String>> renamings, IntSupplier ids) {
    Map<LogicalRel, LogicalRel> inside = new IdentityHashMap<>();
    inside.put(first, first);
    copies.forEach(copy -> inside.put(copy, copy));
    Set<String> read = new LinkedHashSet<>(root.columns());
    readOutside(root, inside, read);
    Set<String> kept = new LinkedHashSet<>();
    for (String column : first.columns()) {
      if (read.contains(column)) {
        kept.add(column);
      }
    }
    for (int c = 0; c < copies.size(); c++) {
      for (String column : copies.get(c).columns()) {
        if (read.contains(column)) {
          kept.add(renamings.get(c).get(column));
        }
      }
    }
    if (kept.isEmpty()) { // only rows are counted above: one column stands for them
      kept.add(first.columns().getFirst());
    }
    LogicalRel input = kept.size() == first.columns().size() ? first : Rebuild.sameColumns(first, List.copyOf(kept));
    LogicalRel.Shared shared = new LogicalRel.Shared(ids.getAsInt(), input);
    Map<LogicalRel, LogicalRel> replaced = new IdentityHashMap<>();
    replaced.put(first, shared);
    for (int c = 0; c < copies.size(); c++) {
      List<NamedExpr> renamed = new ArrayList<>();
      for (String column : copies.get(c).columns()) {
        String source = renamings.get(c).get(column);
        if (kept.contains(source)) {
          renamed.add(Expr.col(source).as(column));
        }
      }
      replaced.put(copies.get(c), new LogicalRel.Project(shared, renamed));
    }
    return replaced;
  }

  /**
   * Whether sharing {@code rel} pays: not where its tables fit in one chunk (computing it again
   * costs what reading its result back does), an aggregation otherwise always, anything else where
   * it keeps few rows.
   */
  private static boolean pays(LogicalRel rel, CardinalityEstimator estimator) {
    double largest = RepeatedJoinInput.largestTable(rel, estimator);
    return largest > Chunk.CAPACITY && (rel instanceof LogicalRel.Aggregation
        || estimator.of(rel).rows() <= SharedAggregateInput.MOST_SHARED * largest);
  }

  /** The nodes of {@code rel} worth sharing, outside shared relations, each with its size. */
  private static int collect(LogicalRel rel, List<Candidate> found, boolean shared) {
    boolean below = shared || rel instanceof LogicalRel.Shared;
    int size = 1;
    for (LogicalRel input : CommonAggregations.inputs(rel)) {
      size += collect(input, found, below);
    }
    if (!below && computes(rel) && !ordered(rel)) {
      found.add(new Candidate(rel, size));
    }
    return size;
  }

  /**
   * Whether {@code rel} joins, aggregates or matches strings against a pattern somewhere outside
   * shared relations (a project of a shared relation, as a copy becomes, is cheap to compute again;
   * a LIKE reads every byte of its strings, where holding its few surviving rows costs little).
   */
  private static boolean computes(LogicalRel rel) {
    return rel instanceof LogicalRel.Join || rel instanceof LogicalRel.Cross || rel instanceof LogicalRel.Aggregation
        || rel instanceof LogicalRel.Filter filter && matchesPattern(filter.condition())
        || !(rel instanceof LogicalRel.Shared) && CommonAggregations.inputs(rel).stream().anyMatch(CommonSubtrees::computes);
  }

  private static boolean matchesPattern(Expr condition) {
    return switch (condition) {
      case Expr.Like like -> true;
      case Expr.And and -> and.operands().stream().anyMatch(CommonSubtrees::matchesPattern);
      case Expr.Or or -> or.operands().stream().anyMatch(CommonSubtrees::matchesPattern);
      case Expr.Not not -> matchesPattern(not.operand());
      default -> false;
    };
  }

  /** Whether {@code rel}'s rows come in an order: a sort's, through the nodes that keep it. */
  private static boolean ordered(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Sort sort -> true;
      case LogicalRel.Project project -> ordered(project.input());
      case LogicalRel.Filter filter -> ordered(filter.input());
      case LogicalRel.Limit limit -> ordered(limit.input());
      default -> false;
    };
  }

  /** Adds to {@code read} the columns {@code rel} reads outside the subtrees of {@code inside}. */
  private static void readOutside(LogicalRel rel, Map<LogicalRel, LogicalRel> inside, Set<String> read) {
    if (inside.containsKey(rel)) {
      return;
    }
    switch (rel) {
      case LogicalRel.Filter filter -> read.addAll(Exprs.columns(filter.condition()));
      case LogicalRel.Project project -> project.outputs().forEach(o -> read.addAll(Exprs.columns(o.expr())));
      case LogicalRel.Aggregation a -> {
        a.keys().forEach(key -> read.addAll(Exprs.columns(key.expr())));
        for (Aggregate measure : a.measures()) {
          if (measure.argument() != null) {
            read.addAll(Exprs.columns(measure.argument()));
          }
        }
      }
      case LogicalRel.Sort sort -> sort.keys().stream().map(SortKey::column).forEach(read::add);
      case LogicalRel.Join join -> {
        read.addAll(join.leftKeys());
        read.addAll(join.rightKeys());
      }
      default -> { }
    }
    CommonAggregations.inputs(rel).forEach(input -> readOutside(input, inside, read));
  }
}
