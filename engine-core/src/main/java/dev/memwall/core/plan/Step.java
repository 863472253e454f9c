package dev.memwall.core.plan;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.ExprText;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.expr.Substitution;
import dev.memwall.core.frequent.SummarySizing;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import java.util.List;
import java.util.Map;

/**
 * One step of a {@link Plan}, as the builder records it and {@link PlanExecution} runs it: the
 * streaming steps (filters, projections, stages) run chunk by chunk inside a pipeline, the others
 * (aggregation, order by, limit, top-N) are the breakers that end one. Steps are immutable values.
 */
sealed interface Step permits Step.Filter, Step.Project, Step.Stage, Step.Aggregation, Step.OrderBy, Step.Limit,
    Step.TopN, Step.FrequentValues {

  record Filter(Expr predicate) implements Step {}

  record Stage(ChunkStage stage) implements Step {}

  record Project(List<NamedExpr> outputs) implements Step {}

  record Aggregation(List<NamedExpr> keys, List<Aggregate> aggregates) implements Step {
    List<NamedExpr> resolvedKeys(Map<String, Expr> aliases) {
      return keys.stream().map(k -> new NamedExpr(Substitution.apply(k.expr(), aliases), k.name())).toList();
    }

    List<Aggregate> resolvedAggregates(Map<String, Expr> aliases) {
      return aggregates.stream().map(g -> new Aggregate(g.function(),
          g.argument() == null ? null : Substitution.apply(g.argument(), aliases), g.name())).toList();
    }
  }

  record OrderBy(List<SortKey> keys) implements Step {}

  record Limit(long rows) implements Step {}

  /** ORDER BY directly followed by LIMIT: one bounded top-N instead of a full sort and a copy. */
  record TopN(List<SortKey> keys, long rows) implements Step {}

  /**
   * The approximate top {@code k} values of {@code value} ({@code topK}), or those occurring in more
   * than a share {@code phi} of the rows, from Space-Saving summaries of {@code counters} counters, or
   * at least that many when {@code fitted}: as many as the cache level of the lookup holds
   * ({@link SummarySizing#atLeast}); per value of {@code group} when it is not null.
   */
  record FrequentValues(Expr group, Expr value, boolean topK, int k, double phi, int counters, boolean fitted)
      implements Step {
    FrequentValues resolved(Map<String, Expr> aliases) {
      return new FrequentValues(group == null ? null : Substitution.apply(group, aliases),
          Substitution.apply(value, aliases), topK, k, phi, counters, fitted);
    }

    /**
     * The summaries' layout on {@code machine}: the counters asked for, or at least them when fitted;
     * grouped, the least lookup, since the groups' summaries share the caches and no one of them can
     * own a level.
     */
    SummarySizing sizing(MachineProfile machine) {
      if (group != null) {
        return SummarySizing.unfitted(counters);
      }
      return fitted ? SummarySizing.atLeast(machine, counters) : SummarySizing.forCounters(machine, counters);
    }

    /**
     * The result's columns: the group key (when grouped; named after its column, else {@code group}),
     * the value (named after its column, or {@code value} for a computed one or a column named like
     * another), its count, the count's error bound, the flag.
     */
    List<String> columnNames() {
      List<String> bounds = List.of("count", "error_bound", "guaranteed");
      String name = value instanceof Expr.ColumnRef ref && !bounds.contains(ref.name()) ? ref.name() : "value";
      if (group == null) {
        return List.of(name, bounds.get(0), bounds.get(1), bounds.get(2));
      }
      String key = group instanceof Expr.ColumnRef ref && !bounds.contains(ref.name()) && !ref.name().equals(name)
          && !ref.name().equals("value") ? ref.name() : "group";
      if (name.equals("group")) {
        name = "value";
      }
      return List.of(key, name, bounds.get(0), bounds.get(1), bounds.get(2));
    }

    String describe() {
      return (topK ? "approximate top " + k : "values in more than " + phi + " of the rows") + " of "
          + ExprText.of(value) + (group == null ? "" : " per " + ExprText.of(group)) + " (Space-Saving, "
          + (fitted ? "at least " : "") + counters + " counters per " + (group == null ? "worker" : "group and worker")
          + (fitted ? ", as many as the lookup's cache level holds" : "") + ", merged)";
    }
  }

  /** Whether {@code step} streams rows within a pipeline (a filter, projection or stage) rather than ending it. */
  static boolean isStreaming(Step step) {
    return step instanceof Filter || step instanceof Project || step instanceof Stage;
  }
}
