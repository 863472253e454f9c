package dev.memwall.substrait;

import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The materialized results of one plan run's {@link LogicalRel.Shared} relations: each id's input
 * runs once, when its first reader is lowered, into a table every reader then scans. A table keeps
 * only the columns the plan reads somewhere (a name is read where an expression, a key or the
 * root's output names it; names are unique within a plan), so that a shared join does not carry
 * the unused columns of its tables. The tables live until the plan's run ends: the lowered root
 * relation holds them ({@link dev.memwall.join.relational.Relation#holding}), since a reader's
 * rows may be read as late as the root's last pipeline.
 *
 * <p>Ownership: the tables are this object's until {@link #release} hands them over; {@link
 * #close} frees those not handed over (a lowering that failed). Not thread-safe; one per plan run.
 */
final class SharedResults implements AutoCloseable {
  /** A shared relation's input and its result. */
  private record Result(LogicalRel input, Table table) {}

  private final Set<String> read;
  private final Map<Integer, Result> results = new HashMap<>();
  private final List<Table> owned = new ArrayList<>();

  /** The shared results of {@code root}'s run, whose output columns are {@code outputs}. */
  SharedResults(LogicalRel root, Set<String> outputs) {
    this.read = new LinkedHashSet<>(outputs);
    Map<String, Set<String>> projected = new HashMap<>();
    collect(root, read, projected);
    for (boolean grew = true; grew; ) { // a projected column is read where its output is
      grew = false;
      for (Map.Entry<String, Set<String>> output : projected.entrySet()) {
        grew |= read.contains(output.getKey()) && read.addAll(output.getValue());
      }
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
    Set<String> columns = new LinkedHashSet<>();
    shared.input().columns().stream().filter(read::contains).forEach(columns::add);
    if (columns.isEmpty()) { // count(*) above it: one column for the row count
      columns.add(shared.input().columns().getFirst());
    }
    Table table = run.apply(shared.input(), columns);
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
   * Adds to {@code names} every column {@code rel} and its inputs read, but for projects' outputs,
   * which go to {@code projected}: the columns each output's expression reads.
   */
  private static void collect(LogicalRel rel, Set<String> names, Map<String, Set<String>> projected) {
    switch (rel) {
      case LogicalRel.Scan scan -> { }
      case LogicalRel.Filter filter -> {
        names.addAll(Exprs.columns(filter.condition()));
        collect(filter.input(), names, projected);
      }
      case LogicalRel.Project project -> {
        project.outputs().forEach(output -> projected.computeIfAbsent(output.name(), name -> new LinkedHashSet<>())
            .addAll(Exprs.columns(output.expr())));
        collect(project.input(), names, projected);
      }
      case LogicalRel.Aggregation a -> {
        a.keys().forEach(key -> names.addAll(Exprs.columns(key.expr())));
        for (Aggregate measure : a.measures()) {
          if (measure.argument() != null) {
            names.addAll(Exprs.columns(measure.argument()));
          }
        }
        collect(a.input(), names, projected);
      }
      case LogicalRel.Sort sort -> {
        sort.keys().stream().map(SortKey::column).forEach(names::add);
        collect(sort.input(), names, projected);
      }
      case LogicalRel.Limit limit -> collect(limit.input(), names, projected);
      case LogicalRel.Join join -> {
        names.addAll(join.leftKeys());
        names.addAll(join.rightKeys());
        collect(join.left(), names, projected);
        collect(join.right(), names, projected);
      }
      case LogicalRel.Cross cross -> {
        collect(cross.left(), names, projected);
        collect(cross.right(), names, projected);
      }
      case LogicalRel.Shared shared -> collect(shared.input(), names, projected);
    }
  }
}
