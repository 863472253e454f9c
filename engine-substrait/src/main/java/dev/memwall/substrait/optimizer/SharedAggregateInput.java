package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * A per-key aggregate computed over the rows it is joined back to, which are then read once: TPC-H
 * Q17 compares each lineitem of the chosen parts with the average quantity of its part's lineitems,
 * and its decorrelated plan reads lineitem twice, once joined to the parts and once reduced to them
 * by a semi join for the averages. Both are the same lineitems, so they are computed once (X) and
 * both read them:
 *
 * <pre>
 * inner joins of L, Q, S on L.k = Q.q, S.g = L.k or Q.q    =&gt;   inner join on k = q
 *   S: [project] aggregate [project]                             inner join on k = g
 *        semi join L' (L renamed), Q on k' = q                      shared X: semi join L, Q on k = q
 *                                                                  S with L' read from shared X renamed
 *                                                                Q
 * </pre>
 *
 * <p>It applies to a tree of inner joins of exactly three inputs: L, a table's scan; Q, any input;
 * and S, an aggregation (its input and output possibly projected) over the semi join of L' with an
 * input equal to Q, where L' is a scan of L's table with its columns renamed. The pairs joining L to
 * Q must be the semi join's pairs (L' columns named as L's), and each pair joining S must join it to
 * a column of L or to a column of Q paired with one of L. Then {@code L x Q} on those pairs is
 * {@code X x Q} with X the semi join of L and Q (a semi join keeps exactly the rows the inner join
 * keeps, once each), and S's input is X renamed; a pair from S to Q's column is one to its partner
 * in L, equal in every joined row. Nulls and repeated keys are dropped and repeated alike on both
 * sides. Every inner join is associative, so the result has the same rows.
 *
 * <p>X is a {@link LogicalRel.Shared} relation read twice (computed once); it is shared only
 * where its estimate is at most half of L's rows, since holding a large part of L costs more than
 * reading L again. Stateless and thread-safe when the estimator is.
 */
public final class SharedAggregateInput {
  /** X is shared where it keeps at most this fraction of L's estimated rows. */
  static final double MOST_SHARED = 0.5;

  private final CardinalityEstimator estimator;
  private final IntSupplier ids;

  private SharedAggregateInput(CardinalityEstimator estimator, IntSupplier ids) {
    this.estimator = estimator;
    this.ids = ids;
  }

  /**
   * {@code rel} with each tree of inner joins of that shape, at any depth, reading X once; the same rows.
   *
   * @param ids gives each new shared relation its id
   */
  public static LogicalRel rewrite(LogicalRel rel, CardinalityEstimator estimator, IntSupplier ids) {
    SharedAggregateInput rewrite = new SharedAggregateInput(estimator, ids);
    return Rebuild.eachNode(rel, node -> node instanceof LogicalRel.Join join && join.kind() == JoinKind.INNER
        ? rewrite.share(join) : node);
  }

  private LogicalRel share(LogicalRel.Join join) {
    List<LogicalRel> leaves = new ArrayList<>();
    List<String[]> edges = new ArrayList<>();
    AggregateBeforeLookup.flatten(join, leaves, edges);
    if (leaves.size() != 3) {
      return join;
    }
    for (LogicalRel s : leaves) {
      LogicalRel.Join semi = semiJoin(s);
      if (semi == null) {
        continue;
      }
      for (LogicalRel l : leaves) {
        LogicalRel q = leaves.stream().filter(leaf -> leaf != s && leaf != l).findFirst().orElse(null);
        Map<String, String> renamed = l == s || q == null ? null : renaming(l, semi.left());
        if (renamed != null && q.equals(semi.right())) {
          LogicalRel shared = shared(join, edges, s, semi, l, renamed, q);
          if (shared != null) {
            return shared;
          }
        }
      }
    }
    return join;
  }

  /** The rewrite for leaves L, Q and S, or null where the pairs do not fit or sharing would not pay. */
  private LogicalRel shared(LogicalRel.Join join, List<String[]> edges, LogicalRel s, LogicalRel.Join semi, LogicalRel l,
      Map<String, String> renamed, LogicalRel q) {
    Set<String> lColumns = new HashSet<>(l.columns());
    Set<String> qColumns = new HashSet<>(q.columns());
    Set<String> sColumns = new HashSet<>(s.columns());
    Set<List<String>> semiPairs = new HashSet<>();
    for (int i = 0; i < semi.leftKeys().size(); i++) {
      semiPairs.add(List.of(semi.leftKeys().get(i), semi.rightKeys().get(i)));
    }
    Set<List<String>> lqPairs = new HashSet<>();
    List<String> xKeys = new ArrayList<>();
    List<String> sKeys = new ArrayList<>();
    Map<String, String> partner = new HashMap<>(); // a Q column joined to L's column
    List<String> lKeys = new ArrayList<>();
    List<String> qKeys = new ArrayList<>();
    for (String[] edge : edges) {
      for (int side = 0; side < 2; side++) {
        if (lColumns.contains(edge[side]) && qColumns.contains(edge[1 - side])) {
          lqPairs.add(List.of(renamed.get(edge[side]), edge[1 - side]));
          partner.put(edge[1 - side], edge[side]);
          lKeys.add(edge[side]);
          qKeys.add(edge[1 - side]);
        }
      }
    }
    if (lqPairs.isEmpty() || !lqPairs.equals(semiPairs) || lKeys.size() != semiPairs.size()) {
      return null;
    }
    for (String[] edge : edges) {
      for (int side = 0; side < 2; side++) {
        if (sColumns.contains(edge[side])) {
          String other = lColumns.contains(edge[1 - side]) ? edge[1 - side] : partner.get(edge[1 - side]);
          if (other == null) {
            return null;
          }
          xKeys.add(other);
          sKeys.add(edge[side]);
        }
      }
    }
    if (sKeys.isEmpty()) {
      return null;
    }
    LogicalRel semiJoin = new LogicalRel.Join(JoinKind.SEMI, l, q, lKeys, qKeys);
    if (estimator.of(semiJoin).rows() > MOST_SHARED * estimator.of(l).rows()) {
      return null;
    }
    LogicalRel x = new LogicalRel.Shared(ids.getAsInt(), semiJoin);
    Map<String, String> back = new HashMap<>(); // L' column -> L column
    renamed.forEach((column, copy) -> back.put(copy, column));
    LogicalRel readX = readAs(x, s, semi, back);
    LogicalRel sOverX = replace(s, semi, readX);
    LogicalRel withAggregate = new LogicalRel.Join(JoinKind.INNER, x, sOverX, xKeys, sKeys);
    return Rebuild.sameColumns(new LogicalRel.Join(JoinKind.INNER, withAggregate, q, lKeys, qKeys), join.columns());
  }

  /** X projected onto the L' columns {@code s} reads from the semi join, under their L' names. */
  private static LogicalRel readAs(LogicalRel x, LogicalRel s, LogicalRel.Join semi, Map<String, String> back) {
    Set<String> read = readAbove(s, semi);
    List<NamedExpr> outputs = new ArrayList<>();
    for (String column : semi.left().columns()) {
      if (read.contains(column)) {
        outputs.add(Expr.col(back.get(column)).as(column));
      }
    }
    if (outputs.isEmpty()) { // a count(*) reads no column, but the rows
      String first = semi.left().columns().getFirst();
      outputs.add(Expr.col(back.get(first)).as(first));
    }
    return new LogicalRel.Project(x, outputs);
  }

  /** The columns the node of {@code s} directly above {@code semi} reads. */
  private static Set<String> readAbove(LogicalRel s, LogicalRel.Join semi) {
    Set<String> read = new HashSet<>();
    switch (s) {
      case LogicalRel.Project p when p.input() == semi -> p.outputs().forEach(o -> read.addAll(Exprs.columns(o.expr())));
      case LogicalRel.Project p -> read.addAll(readAbove(p.input(), semi));
      case LogicalRel.Aggregation a when a.input() == semi -> {
        a.keys().forEach(key -> read.addAll(Exprs.columns(key.expr())));
        a.measures().stream().filter(m -> m.argument() != null).forEach(m -> read.addAll(Exprs.columns(m.argument())));
      }
      case LogicalRel.Aggregation a -> read.addAll(readAbove(a.input(), semi));
      default -> { }
    }
    return read;
  }

  /** {@code s} with its node {@code semi} replaced by {@code by}. */
  private static LogicalRel replace(LogicalRel s, LogicalRel.Join semi, LogicalRel by) {
    return switch (s) {
      case LogicalRel.Project p -> new LogicalRel.Project(replace(p.input(), semi, by), p.outputs());
      case LogicalRel.Aggregation a -> new LogicalRel.Aggregation(replace(a.input(), semi, by), a.keys(), a.measures());
      default -> s == semi ? by : s;
    };
  }

  /** The semi join under S of the shape {@code [project] aggregate [project] semi join}, or null. */
  private static LogicalRel.Join semiJoin(LogicalRel s) {
    LogicalRel at = s instanceof LogicalRel.Project p ? p.input() : s;
    if (!(at instanceof LogicalRel.Aggregation a)) {
      return null;
    }
    LogicalRel below = a.input() instanceof LogicalRel.Project p ? p.input() : a.input();
    return below instanceof LogicalRel.Join semi && semi.kind() == JoinKind.SEMI ? semi : null;
  }

  /**
   * The names of {@code l}'s columns in {@code copy} when {@code copy} reads the same table as
   * {@code l}, a scan, with the same table columns under other names; null otherwise.
   */
  private static Map<String, String> renaming(LogicalRel l, LogicalRel copy) {
    if (!(l instanceof LogicalRel.Scan scan && copy instanceof LogicalRel.Scan other) || scan.source() != other.source()
        || !scan.tableColumns().equals(other.tableColumns())) {
      return null;
    }
    Map<String, String> renamed = new HashMap<>();
    for (int i = 0; i < scan.columns().size(); i++) {
      renamed.put(scan.columns().get(i), other.columns().get(i));
    }
    Set<String> names = new LinkedHashSet<>(scan.columns());
    names.retainAll(other.columns());
    return names.isEmpty() ? renamed : null; // a copy under the same names would be the same read
  }
}
