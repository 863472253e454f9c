package dev.memwall.bench.aggregate;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.List;

/** The input of the grouping benchmarks: int64 keys in random order, sparse like TPC-H's order keys, and a value. */
final class RandomKeys {
  private RandomKeys() {}

  /**
   * A table of columns {@code k} ({@code groups} distinct keys, each row's drawn by a fixed linear
   * congruential generator, so every trial aggregates the same rows) and {@code v} (the row number
   * modulo 1,024), allocated from {@code memory}; the caller closes it.
   */
  static Table table(EngineMemory memory, int rows, int groups) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "v"), List.of(ColumnType.INT64, ColumnType.INT64),
        memory.arrow())) {
      long state = 42;
      for (int r = 0; r < rows; r++) {
        state = state * 6364136223846793005L + 1442695040888963407L;
        long key = Long.remainderUnsigned(state >>> 11, groups) * 32 + 7;
        builder.appendLong(key).appendLong(r & 1023).endRow();
      }
      return builder.build();
    }
  }
}
