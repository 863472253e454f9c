package dev.memwall.substrait.logical;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A logical plan node: what a Substrait relation means, checked and named, before anything runs.
 * Columns are referred to by name, and every name is unique within one plan (a table read twice
 * gets fresh names for its second read), so a node's {@link #columns} are a set whose order is of
 * no consequence: a parent finds its inputs' columns by name, never by position. That is what lets
 * the optimizer reorder joins freely.
 *
 * <p>Nodes are immutable and hold no memory: a {@link Scan} names a table its catalog lends.
 */
public sealed interface LogicalRel {

  /** The names of the columns this node produces. */
  List<String> columns();

  /**
   * A read of {@code source}: its column {@code tableColumns[i]} appears as {@code columns[i]}.
   *
   * @param table the catalog's name of the table, for explain and errors
   */
  record Scan(String table, Table source, List<String> tableColumns, List<String> columns) implements LogicalRel {
    public Scan {
      Objects.requireNonNull(source, "source");
      tableColumns = List.copyOf(tableColumns);
      columns = List.copyOf(columns);
      if (tableColumns.size() != columns.size()) {
        throw new IllegalArgumentException("a scan names each column once: " + tableColumns + " as " + columns);
      }
    }

    /** The table's name of this scan's {@code column}, or null when the scan has no such column. */
    public String tableColumn(String column) {
      int at = columns.indexOf(column);
      return at < 0 ? null : tableColumns.get(at);
    }
  }

  /** The input's rows where {@code condition} is true (null is not). */
  record Filter(LogicalRel input, Expr condition) implements LogicalRel {
    @Override
    public List<String> columns() {
      return input.columns();
    }
  }

  /** The {@code outputs} computed over each input row. */
  record Project(LogicalRel input, List<NamedExpr> outputs) implements LogicalRel {
    public Project {
      outputs = List.copyOf(outputs);
    }

    @Override
    public List<String> columns() {
      return outputs.stream().map(NamedExpr::name).toList();
    }
  }

  /** One group per distinct {@code keys} (one global group without keys) with its {@code measures}. */
  record Aggregation(LogicalRel input, List<NamedExpr> keys, List<Aggregate> measures) implements LogicalRel {
    public Aggregation {
      keys = List.copyOf(keys);
      measures = List.copyOf(measures);
    }

    @Override
    public List<String> columns() {
      List<String> names = new ArrayList<>(keys.stream().map(NamedExpr::name).toList());
      measures.forEach(measure -> names.add(measure.name()));
      return names;
    }
  }

  /** The input ordered by {@code keys}, columns of the input. */
  record Sort(LogicalRel input, List<SortKey> keys) implements LogicalRel {
    public Sort {
      keys = List.copyOf(keys);
    }

    @Override
    public List<String> columns() {
      return input.columns();
    }
  }

  /** The input's first {@code rows} rows. */
  record Limit(LogicalRel input, long rows) implements LogicalRel {
    @Override
    public List<String> columns() {
      return input.columns();
    }
  }

  /**
   * An equi-join on {@code leftKeys[i] = rightKeys[i]}; {@code right} is the build side. Inner and
   * left outer joins produce both inputs' columns, semi and anti joins the left input's.
   */
  record Join(JoinKind kind, LogicalRel left, LogicalRel right, List<String> leftKeys, List<String> rightKeys)
      implements LogicalRel {
    public Join {
      leftKeys = List.copyOf(leftKeys);
      rightKeys = List.copyOf(rightKeys);
      if (leftKeys.isEmpty() || leftKeys.size() != rightKeys.size()) {
        throw new IllegalArgumentException("a join needs as many left as right keys, at least one: " + leftKeys
            + " and " + rightKeys);
      }
    }

    @Override
    public List<String> columns() {
      if (kind == JoinKind.SEMI || kind == JoinKind.ANTI) {
        return left.columns();
      }
      List<String> names = new ArrayList<>(left.columns());
      names.addAll(right.columns());
      return names;
    }
  }

  /** Every pair of a left row and a right row. */
  record Cross(LogicalRel left, LogicalRel right) implements LogicalRel {
    @Override
    public List<String> columns() {
      List<String> names = new ArrayList<>(left.columns());
      names.addAll(right.columns());
      return names;
    }
  }

  /**
   * The rows of {@code input}, computed once for every node of the plan that refers to the same
   * {@code id}: the plan's readers of one relation (a common subexpression, or a relation both
   * joined with and reduced by) share one materialized result instead of each computing it. Every
   * node of one id has an equal {@code input}; the result lives until the plan's run ends.
   */
  record Shared(int id, LogicalRel input) implements LogicalRel {
    public Shared {
      Objects.requireNonNull(input, "input");
    }

    @Override
    public List<String> columns() {
      return input.columns();
    }
  }

  /** The joins memwall runs. */
  enum JoinKind { INNER, LEFT_OUTER, SEMI, ANTI }
}
