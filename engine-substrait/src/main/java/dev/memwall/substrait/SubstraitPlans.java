package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import dev.memwall.substrait.logical.Explain;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.optimizer.AggregateBeforeLookup;
import dev.memwall.substrait.optimizer.AggregationJoinedLast;
import dev.memwall.substrait.optimizer.BuildSideReduction;
import dev.memwall.substrait.optimizer.CardinalityEstimator;
import dev.memwall.substrait.optimizer.CommonAggregations;
import dev.memwall.substrait.optimizer.CommonSubtrees;
import dev.memwall.substrait.optimizer.DeterminedGroupingKeys;
import dev.memwall.substrait.optimizer.EagerCount;
import dev.memwall.substrait.optimizer.ForeignKeySemiJoin;
import dev.memwall.substrait.optimizer.GroupReduction;
import dev.memwall.substrait.optimizer.JoinOrder;
import dev.memwall.substrait.optimizer.NestedSemiJoins;
import dev.memwall.substrait.optimizer.RepeatedJoinInput;
import dev.memwall.substrait.optimizer.SharedAggregateInput;
import dev.memwall.substrait.optimizer.SharedSemiJoin;
import dev.memwall.substrait.optimizer.SoleReader;
import dev.memwall.substrait.optimizer.TopNBeforeLookup;
import dev.memwall.substrait.optimizer.TotalFromGroups;
import io.substrait.plan.Plan;
import io.substrait.plan.ProtoPlanConverter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Substrait plans run on memwall: a plan (Substrait's Java POJOs, or its protobuf through the
 * library's {@link ProtoPlanConverter}) with one root is converted into a {@link LogicalRel}
 * against a {@link Catalog}, which refuses anything outside the supported subset (see the package
 * documentation) with an {@link UnsupportedPlanException} before anything runs. The logical plan is
 * then rewritten, in this order:
 *
 * <ul>
 *   <li>its comma joins are ordered ({@link JoinOrder});
 *   <li>from the keys the catalog declares, an aggregation is taken before a join that only looks up
 *       columns its keys determine ({@link AggregateBeforeLookup}) and groups by fewer keys where
 *       the others are determined ({@link DeterminedGroupingKeys}); from the declared foreign keys, a
 *       top-N is taken before a join that extends each row once ({@link TopNBeforeLookup});
 *   <li>a count over a left outer join's optional side is taken before the join ({@link EagerCount});
 *       a join's build side is semi joined to a filtered input its probe side is joined to on the
 *       same key ({@link BuildSideReduction});
 *   <li>through relations shared by their readers ({@link LogicalRel.Shared}): an aggregate joined
 *       back to the rows it is computed over reads them once ({@link SharedAggregateInput}), as does a
 *       join's probe side that its build side repeats ({@link RepeatedJoinInput}); an aggregation
 *       joined on its grouping keys is joined after a join that reduces them
 *       ({@link AggregationJoinedLast}); an aggregation computed twice is computed once
 *       ({@link CommonAggregations}), a total over another aggregation's rows is taken over its groups
 *       ({@link TotalFromGroups}), a table semi joined to an input that a join elsewhere repeats is
 *       reduced once for both ({@link SharedSemiJoin}), a joining or aggregating subtree that appears
 *       twice is computed once ({@link CommonSubtrees}), an aggregation joined on its grouping keys
 *       groups only the keys the join reads ({@link GroupReduction}), and a semi join of a table
 *       whose keys are among another semi join's reads that one's rows ({@link NestedSemiJoins});
 *   <li>a semi join on a declared foreign key with the referenced rows that a semi join on part of
 *       its key keeps is one on that part ({@link ForeignKeySemiJoin}).
 * </ul>
 *
 * <p>It is then lowered onto a {@link Relation} whose output columns carry the root's names, an
 * uncorrelated scalar subquery run first and read as a literal.
 *
 * <p>Ownership: the catalog's tables stay the caller's and must stay open until the result is
 * consumed; {@link #execute}'s table and {@link #stream}'s reader are the caller's to close.
 * Thread safety: the methods keep no state; each call is for one thread (the plan itself runs on
 * the context's threads).
 */
public final class SubstraitPlans {
  private SubstraitPlans() {}

  /** A converted and optimized plan: its logical tree, and the root's column names with theirs. */
  public record Prepared(LogicalRel rel, List<String> internalNames, List<String> outputNames) {
    /** The logical plan as text. */
    public String explain() {
      return Explain.of(rel) + "output " + outputNames + "\n";
    }
  }

  /**
   * {@code plan} converted and optimized, nothing run.
   *
   * @throws UnsupportedPlanException for what memwall does not run, naming it and where it is
   */
  public static Prepared prepare(Plan plan, Catalog catalog) {
    Objects.requireNonNull(catalog, "catalog");
    if (plan.getRoots().size() != 1) {
      throw new UnsupportedPlanException("plan", plan.getRoots().size() + " roots (only one)");
    }
    Plan.Root root = plan.getRoots().getFirst();
    RelConverter converter = new RelConverter(catalog);
    RelConverter.Converted converted = converter.convert(root.getInput(), "root");
    List<String> outputNames = new ArrayList<>(root.getNames());
    if (outputNames.isEmpty()) {
      outputNames.addAll(converted.names());
    }
    if (outputNames.size() != converted.names().size()) {
      throw new UnsupportedPlanException("root", outputNames.size() + " names for " + converted.names().size()
          + " fields (nested names are not supported)");
    }
    CardinalityEstimator estimator = new CardinalityEstimator(scan -> catalog.statistics(scan.table()));
    LogicalRel ordered = JoinOrder.optimize(converted.rel(), converter::joinable, estimator);
    Function<LogicalRel.Scan, List<List<String>>> keys = scan -> catalog.keys(scan.table());
    LogicalRel grouped = DeterminedGroupingKeys.rewrite(AggregateBeforeLookup.rewrite(ordered, keys), keys,
        converter::type);
    LogicalRel limited = TopNBeforeLookup.rewrite(grouped, keys, scan -> catalog.foreignKeys(scan.table()));
    LogicalRel reduced = BuildSideReduction.rewrite(EagerCount.rewrite(limited), estimator);
    int[] sharedIds = {0};
    IntSupplier ids = () -> ++sharedIds[0];
    LogicalRel joinsShared = RepeatedJoinInput.rewrite(SharedAggregateInput.rewrite(reduced, estimator, ids),
        estimator, ids);
    joinsShared = AggregationJoinedLast.rewrite(joinsShared, keys, estimator);
    LogicalRel totals = TotalFromGroups.rewrite(CommonAggregations.rewrite(joinsShared, ids), converter::type, ids);
    LogicalRel subtreesShared = CommonSubtrees.rewrite(SharedSemiJoin.rewrite(totals, estimator, ids), estimator, ids);
    LogicalRel shared = GroupReduction.rewrite(subtreesShared, estimator, ids);
    shared = NestedSemiJoins.rewrite(shared, estimator, ids);
    shared = ForeignKeySemiJoin.rewrite(shared, scan -> catalog.foreignKeys(scan.table()));
    shared = CommonSubtrees.rewrite(SoleReader.rewrite(shared), estimator, ids);
    return new Prepared(shared, converted.names(), unique(outputNames));
  }

  /** As {@link #prepare(Plan, Catalog)} for a protobuf plan. */
  public static Prepared prepare(io.substrait.proto.Plan plan, Catalog catalog) {
    return prepare(new ProtoPlanConverter().from(plan), catalog);
  }

  /**
   * {@code plan} as a relation with the root's column names, ready to run; its joins have run
   * their build sides already. The caller consumes or closes it.
   */
  public static Relation relation(Prepared plan, ExecutionContext context) {
    Set<String> required = new LinkedHashSet<>(plan.internalNames());
    Relation relation = new RelationLowering(context).lowerRoot(plan.rel(), required);
    List<NamedExpr> outputs = new ArrayList<>();
    for (int i = 0; i < plan.internalNames().size(); i++) {
      outputs.add(Expr.col(plan.internalNames().get(i)).as(plan.outputNames().get(i)));
    }
    return relation.project(outputs.toArray(NamedExpr[]::new));
  }

  /** Runs {@code plan}; the caller closes the table. */
  public static Table execute(Plan plan, Catalog catalog, ExecutionContext context) {
    return relation(prepare(plan, catalog), context).toTable();
  }

  /** Runs {@code plan} as a stream of Arrow batches in {@code allocator}; the caller closes the reader. */
  public static ArrowReader stream(Plan plan, Catalog catalog, ExecutionContext context, BufferAllocator allocator) {
    return relation(prepare(plan, catalog), context).stream(allocator);
  }

  /** The root's names, a repeated one suffixed so that every output column has its own. */
  private static List<String> unique(List<String> names) {
    Set<String> seen = new HashSet<>();
    List<String> unique = new ArrayList<>();
    for (String name : names) {
      String candidate = name;
      for (int n = 2; !seen.add(candidate); n++) {
        candidate = name + "_" + n;
      }
      unique.add(candidate);
    }
    return unique;
  }
}
