package dev.memwall.substrait.optimizer;

import java.util.List;
import java.util.Objects;

/**
 * A foreign key declared for a table: in every row, {@code columns} are non-null and equal the key
 * {@code referencedColumns} (position by position) of exactly one row of the table {@code
 * referencedTable}. It is what lets a rewrite know that an inner join from the table to the
 * referenced one, read in full, neither drops nor repeats a row. Declared by the host, relied on
 * unchecked (see {@code Catalog.declareForeignKey}). Immutable.
 *
 * @param columns the referencing table's columns, as the table spells them
 * @param referencedTable the referenced table's name, as registered
 * @param referencedColumns a declared key of the referenced table, as that table spells them
 */
public record ForeignKey(List<String> columns, String referencedTable, List<String> referencedColumns) {
  public ForeignKey {
    columns = List.copyOf(columns);
    Objects.requireNonNull(referencedTable, "referencedTable");
    referencedColumns = List.copyOf(referencedColumns);
    if (columns.isEmpty() || columns.size() != referencedColumns.size()) {
      throw new IllegalArgumentException("a foreign key needs as many columns as it references, at least one: "
          + columns + " and " + referencedColumns);
    }
  }
}
