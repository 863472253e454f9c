package dev.memwall.join.algorithm;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.List;

/** Tables of one key column {@code k} for the build tables' properties. */
final class KeyTables {
  private KeyTables() {}

  /**
   * The keys (null for a null key) as column {@code k} of {@code type}, in batches of at most
   * {@code batchRows} rows (a power of two from 64; {@code 0}: the builder's default).
   */
  static Table of(EngineMemory memory, List<Long> keys, ColumnType type, int batchRows) {
    try (TableBuilder builder = new TableBuilder(List.of("k"), List.of(type), memory.arrow())) {
      if (batchRows > 0) {
        builder.batchRows(batchRows);
      }
      for (Long key : keys) {
        builder.appendLongOrNull(key).endRow();
      }
      return builder.build();
    }
  }
}
