package dev.memwall.substrait;

import dev.memwall.core.Closing;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A rewrite test's tables by name, each read by a scan under its name and its columns' own names
 * ({@link LogicalRuns#scan}). It owns the tables added and closes them together. Not thread-safe.
 */
final class NamedTables implements AutoCloseable {
  private final Map<String, Table> tables = new LinkedHashMap<>();

  /**
   * Adds {@code table} as {@code name}, owned from now on; this, for chaining.
   *
   * @throws IllegalArgumentException for a name added before (the table is closed, not added)
   */
  NamedTables add(String name, Table table) {
    if (tables.putIfAbsent(name, table) != null) {
      table.close();
      throw new IllegalArgumentException("a table named " + name + " was added before");
    }
    return this;
  }

  /**
   * A scan of the table added as {@code name}.
   *
   * @throws IllegalArgumentException for a name not added
   */
  LogicalRel.Scan scan(String name) {
    Table table = tables.get(name);
    if (table == null) {
      throw new IllegalArgumentException("no table named " + name + " among " + tables.keySet());
    }
    return LogicalRuns.scan(name, table);
  }

  @Override
  public void close() {
    Closing.closeAll(List.copyOf(tables.values()));
  }
}
