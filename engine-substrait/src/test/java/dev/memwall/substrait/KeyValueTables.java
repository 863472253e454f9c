package dev.memwall.substrait;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/** The two-column tables of the rewrite properties: adversarial keys and a value null in places. */
final class KeyValueTables {
  private KeyValueTables() {}

  /** Rows of {@code (key, value)}: the value is the row's position mod 3, null at every fourth; the caller closes it. */
  static Table of(EngineMemory memory, String key, String value, List<Long> keys) {
    try (TableBuilder builder = new TableBuilder(List.of(key, value), List.of(ColumnType.INT64, ColumnType.INT64),
        memory.arrow())) {
      for (int r = 0; r < keys.size(); r++) {
        builder.appendLongOrNull(keys.get(r));
        builder.appendLongOrNull(r % 4 == 0 ? null : (long) (r % 3));
        builder.endRow();
      }
      return builder.build();
    }
  }

  /** Keys skewed into a few values, repeated, null, and at the type's limits. */
  static Arbitrary<List<Long>> keys() {
    return Arbitraries.oneOf(Arbitraries.longs().between(0, 5), Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE))
        .injectNull(0.15).list();
  }
}
