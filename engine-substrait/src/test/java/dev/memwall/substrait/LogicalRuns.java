package dev.memwall.substrait;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.IntSupplier;

/** Logical plans run for the rewrite tests, which compare a plan's rows with its rewrite's in any order, their scans and ids. */
final class LogicalRuns {
  private LogicalRuns() {}

  /** The rows of {@code plan}, lowered and run on two threads, sorted by their text. */
  static List<List<Object>> sortedRows(EngineMemory memory, LogicalRel plan) {
    try (Table result = new RelationLowering(new ExecutionContext(memory, 2))
        .lowerRoot(plan, new LinkedHashSet<>(plan.columns())).toTable()) {
      List<List<Object>> rows = new ArrayList<>(TableRows.of(result));
      rows.sort(Comparator.comparing(Object::toString));
      return rows;
    }
  }

  /** A scan of {@code table} as {@code name}, its columns under their own names. */
  static LogicalRel.Scan scan(String name, Table table) {
    List<String> columns = table.schema().getFields().stream().map(field -> field.getName()).toList();
    return new LogicalRel.Scan(name, table, columns, columns);
  }

  /** A scan of a {@link KeyValueTables} table as {@code name}, its columns {@code k} and {@code v} suffixed {@code suffix}. */
  static LogicalRel.Scan scan(String name, Table table, String suffix) {
    return new LogicalRel.Scan(name, table, List.of("k", "v"), List.of("k" + suffix, "v" + suffix));
  }

  /** Ids for the shared relations of one rewrite, counting from 1 as a plan's preparation gives them. */
  static IntSupplier ids() {
    int[] last = {0};
    return () -> ++last[0];
  }
}
