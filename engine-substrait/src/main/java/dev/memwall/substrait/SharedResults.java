package dev.memwall.substrait;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The materialized results of one plan run's {@link LogicalRel.Shared} relations: each id's input
 * runs once, when its first reader is lowered, into a table every reader then scans. A table keeps
 * only the columns its readers require, as the lowering requires them from the root's output down
 * (a filter's, a join's key and an aggregation's columns are required below them, a project's where
 * its output is), each reader's requirement added to the shared relation's until none grows, so
 * that a shared join carries neither the unused columns of its tables nor those only its own input
 * reads (a filter's below its join). The tables live until the plan's run ends: the lowered root
 * relation holds them ({@link dev.memwall.join.relational.Relation#holding}), since a reader's
 * rows may be read as late as the root's last pipeline.
 *
 * <p>Ownership: the tables are this object's until {@link #release} hands them over; {@link
 * #close} frees those not handed over (a lowering that failed). Not thread-safe; one per plan run.
 */
final class SharedResults implements AutoCloseable {
  /** A shared relation's input and its result. */
  private record Result(LogicalRel input, Table table) {}

  private final Map<Integer, Set<String>> required = new HashMap<>();
  private final Map<Integer, Result> results = new HashMap<>();
  private final List<Table> owned = new ArrayList<>();

  /** The shared results of {@code root}'s run, whose output columns are {@code outputs}. */
  SharedResults(LogicalRel root, Set<String> outputs) {
    for (boolean grew = true; grew; ) { // a shared relation's readers may be anywhere, its own input's readers too
      grew = require(root, outputs);
    }
  }

  /**
   * The result of {@code shared}, run by {@code run} (given the input and the columns to keep) when
   * this is its first reader. A reader whose input differs from the first one's of its id gets a
   * result of its own, so that a plan rewritten inconsistently is still answered correctly.
   */
  Table result(LogicalRel.Shared shared, BiFunction<LogicalRel, Set<String>, Table> run) {
    Result known = results.get(shared.id());
    if (known != null && known.input().equals(shared.input())) {
      return known.table();
    }
    Table table = run.apply(shared.input(), kept(shared, required.getOrDefault(shared.id(), Set.of())));
    owned.add(table);
    if (known == null) {
      results.put(shared.id(), new Result(shared.input(), table));
    }
    return table;
  }

  /** The tables made so far, handed over to the caller, who frees them after the plan's run. */
  List<Table> release() {
    List<Table> tables = List.copyOf(owned);
    owned.clear();
    return tables;
  }

  @Override
  public void close() {
    List<Table> tables = release();
    RuntimeException failure = null;
    for (Table table : tables) {
      try {
        table.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Adds what {@code rel}'s readers require of it, {@code columns}, to each shared relation's
   * requirement below it, as {@link RelationLowering} requires columns of its inputs; whether one grew.
   */
  private boolean require(LogicalRel rel, Set<String> columns) {
    return switch (rel) {
      case LogicalRel.Scan scan -> false;
      case LogicalRel.Filter filter -> require(filter.input(), union(columns, Exprs.columns(filter.condition())));
      case LogicalRel.Project project -> {
        Set<String> needed = new LinkedHashSet<>();
        project.outputs().stream().filter(output -> columns.contains(output.name()))
            .forEach(output -> needed.addAll(Exprs.columns(output.expr())));
        if (needed.isEmpty() && !project.outputs().isEmpty()) { // the lowering keeps the first output at least
          needed.addAll(Exprs.columns(project.outputs().getFirst().expr()));
        }
        yield require(project.input(), needed);
      }
      case LogicalRel.Aggregation a -> {
        Set<String> needed = new LinkedHashSet<>();
        a.keys().forEach(key -> needed.addAll(Exprs.columns(key.expr())));
        for (Aggregate measure : a.measures()) {
          if (measure.argument() != null) {
            needed.addAll(Exprs.columns(measure.argument()));
          }
        }
        yield require(a.input(), needed);
      }
      case LogicalRel.Sort sort -> require(sort.input(),
          union(columns, sort.keys().stream().map(SortKey::column).toList()));
      case LogicalRel.Limit limit -> require(limit.input(), columns);
      case LogicalRel.Join join -> require(join.left(), union(columns, join.leftKeys()))
          | require(join.right(), union(columns, join.rightKeys()));
      case LogicalRel.Cross cross -> require(cross.left(), SemiJoinPlacement.oneRow(cross.left())
          ? union(columns, cross.left().columns()) : columns)
          | require(cross.right(), SemiJoinPlacement.oneRow(cross.right())
          ? union(columns, cross.right().columns()) : columns);
      case LogicalRel.Shared shared -> {
        Set<String> own = required.computeIfAbsent(shared.id(), id -> new LinkedHashSet<>());
        boolean grew = own.addAll(columns);
        yield require(shared.input(), kept(shared, own)) | grew;
      }
    };
  }

  /** The columns of {@code shared}'s table: those of its input in {@code read}, or its first for a row count. */
  private static Set<String> kept(LogicalRel.Shared shared, Set<String> read) {
    Set<String> columns = new LinkedHashSet<>();
    shared.input().columns().stream().filter(read::contains).forEach(columns::add);
    if (columns.isEmpty()) { // count(*) above it: one column for the row count
      columns.add(shared.input().columns().getFirst());
    }
    return columns;
  }

  private static Set<String> union(Set<String> a, Collection<String> b) {
    Set<String> all = new LinkedHashSet<>(a);
    all.addAll(b);
    return all;
  }
}
