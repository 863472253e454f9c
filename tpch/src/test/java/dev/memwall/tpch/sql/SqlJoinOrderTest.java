package dev.memwall.tpch.sql;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.sql.Memwall;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.SubstraitPlans;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The join orders the statistics give TPC-H's widest comma joins from their SQL text (Q5, Q8 and
 * Q9, printed): every join at the bottom of the tree starts from a small or selective relation
 * (region, nation, a filtered orders or part), never a many-to-many join such as customer with
 * supplier on their nation. Also prints the time planning takes per supported query after warm-up,
 * with the statistics collected (a measurement, not an assertion: it depends on the machine and its
 * load).
 */
@ExtendWith(LeakCheck.class)
class SqlJoinOrderTest {
  private static final Set<String> SELECTIVE = Set.of("region", "nation", "orders", "part");

  @TempDir Path cache;

  @Test
  void wideJoinsStartFromSelectiveSmallRelations(EngineMemory memory) throws Exception {
    double scale = SqlQueriesAgainstDuckDbTest.SCALE_FACTOR;
    try (TpchDatabase db = TpchDatabase.load(cache, scale, new TpchDataGenerator(2, true), memory)) {
      Catalog catalog = Catalog.of(db.tables());
      for (int number : List.of(5, 8, 9)) {
        SubstraitPlans.Prepared plan = Memwall.prepare(catalog,
            DuckDbOracle.tpchSql(TpchParameters.validation(number, scale)));
        System.out.println("Q" + number + " from SQL:\n" + plan.explain());
        List<LogicalRel.Join> bottom = new ArrayList<>();
        bottomJoins(plan.rel(), bottom);
        assertFalse(bottom.isEmpty(), "Q" + number + " has joins");
        for (LogicalRel.Join join : bottom) {
          Set<String> tables = new TreeSet<>();
          tables(join, tables);
          assertTrue(tables.stream().anyMatch(SELECTIVE::contains), "Q" + number + " starts with " + tables);
          assertFalse(tables.containsAll(Set.of("customer", "supplier")), "Q" + number + " starts many-to-many");
        }
      }
      System.out.println("Planning per query at SF " + scale + ", median of 20 calls after 30 warm-up calls; "
          + "Memwall.prepare (SQL text to memwall plan) and, of it, SubstraitPlans.prepare (Substrait to memwall"
          + " plan: conversion and join ordering); a test-side measurement on a shared machine, indicative only:");
      for (int number : SqlQueriesAgainstDuckDbTest.SUPPORTED) {
        String sql = DuckDbOracle.tpchSql(TpchParameters.validation(number, scale));
        io.substrait.plan.Plan substrait = Memwall.substrait(catalog, sql);
        for (int i = 0; i < 30; i++) {
          Memwall.prepare(catalog, sql);
        }
        double whole = median(() -> Memwall.prepare(catalog, sql));
        double optimizer = median(() -> SubstraitPlans.prepare(substrait, catalog));
        System.out.printf("  Q%d: %.2f ms, of which Substrait to memwall %.2f ms%n", number, whole, optimizer);
      }
    }
  }

  /** The median of 20 timed runs of {@code run}, in milliseconds. */
  private static double median(Runnable run) {
    double[] ms = new double[20];
    for (int i = 0; i < ms.length; i++) {
      long start = System.nanoTime();
      run.run();
      ms[i] = (System.nanoTime() - start) / 1e6;
    }
    Arrays.sort(ms);
    return ms[ms.length / 2];
  }

  /** The joins whose inputs have no join or cross below them. */
  private static boolean bottomJoins(LogicalRel rel, List<LogicalRel.Join> found) {
    boolean below = false;
    for (LogicalRel input : inputs(rel)) {
      below |= bottomJoins(input, found);
    }
    boolean isJoin = rel instanceof LogicalRel.Join || rel instanceof LogicalRel.Cross;
    if (isJoin && !below && rel instanceof LogicalRel.Join join) {
      found.add(join);
    }
    return below || isJoin;
  }

  private static void tables(LogicalRel rel, Set<String> names) {
    if (rel instanceof LogicalRel.Scan scan) {
      names.add(scan.table());
    }
    inputs(rel).forEach(input -> tables(input, names));
  }

  private static List<LogicalRel> inputs(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Scan scan -> List.of();
      case LogicalRel.Filter filter -> List.of(filter.input());
      case LogicalRel.Project project -> List.of(project.input());
      case LogicalRel.Aggregation aggregation -> List.of(aggregation.input());
      case LogicalRel.Sort sort -> List.of(sort.input());
      case LogicalRel.Limit limit -> List.of(limit.input());
      case LogicalRel.Join join -> List.of(join.left(), join.right());
      case LogicalRel.Cross cross -> List.of(cross.left(), cross.right());
      case LogicalRel.Shared shared -> List.of(shared.input());
    };
  }
}
