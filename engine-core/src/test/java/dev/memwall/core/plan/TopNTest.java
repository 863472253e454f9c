package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** ORDER BY + LIMIT (run as one bounded top-N) equals the prefix of the full ORDER BY. */
@ExtendWith(LeakCheck.class)
class TopNTest {

  @Test
  void topNIsThePrefixOfTheFullOrder(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "id"), List.of(ColumnType.INT64, ColumnType.INT64),
        memory.arrow())) {
      for (int i = 0; i < 5000; i++) {
        builder.appendLong((i * 7919L) % 97).appendLong(i).endRow(); // many ties: stability matters
      }
      try (Table table = builder.build()) {
        ExecutionContext context = new ExecutionContext(memory, 2);
        List<List<Long>> full = rows(Plan.scan(table).orderBy(SortKey.desc("k")).execute(context));
        for (int limit : new int[] {0, 1, 3, 100, 1249, 1250, 4999, 5000, 7000}) {
          List<List<Long>> top = rows(Plan.scan(table).orderBy(SortKey.desc("k")).limit(limit).execute(context));
          assertEquals(full.subList(0, Math.min(limit, full.size())).stream().map(r -> r.get(0)).toList(),
              top.stream().map(r -> r.get(0)).toList(), "limit " + limit);
        }
        List<List<Long>> stable = rows(Plan.scan(table).filter(col("k").eq(dev.memwall.core.expr.Expr.lit(5)))
            .orderBy(SortKey.asc("k")).limit(3).execute(ExecutionContext.singleThreaded(memory)));
        assertEquals(3, stable.size());
        assertEquals(true, stable.get(0).get(1) < stable.get(1).get(1) && stable.get(1).get(1) < stable.get(2).get(1),
            "ties keep input order on one thread: " + stable);
      }
    }
  }

  /** The rows of a table of two 64-bit integer columns as (first, second), closing it; shared with the other plan tests. */
  static List<List<Long>> rows(Table table) {
    try (table) {
      List<List<Long>> rows = new ArrayList<>();
      for (Batch batch : table.batches()) {
        for (int r = 0; r < batch.rowCount(); r++) {
          rows.add(List.of(batch.column(0).getLong(r), batch.column(1).getLong(r)));
        }
      }
      return rows;
    }
  }
}
