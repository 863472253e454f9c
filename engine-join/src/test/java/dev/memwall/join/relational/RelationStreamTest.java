package dev.memwall.join.relational;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A relation ending in joins streams its rows to the host and frees its build sides when the reader closes. */
@ExtendWith(LeakCheck.class)
class RelationStreamTest {

  private static Table keys(EngineMemory memory, int rows, int modulo) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "v"), List.of(ColumnType.INT64, ColumnType.decimal(2)),
        memory.arrow())) {
      for (int i = 0; i < rows; i++) {
        builder.appendLong(i % modulo).appendLong(i).endRow();
      }
      return builder.build();
    }
  }

  private static Relation joined(Table left, Table right, ExecutionContext context) {
    Relation r = Relation.scan(right, context).filter(col("k").lt(lit(900))).project(col("k").as("rk"), col("v").as("rv"));
    return Relation.scan(left, context).join(r).on("k", "rk").keep("k", "v", "rv").filter(col("k").gt(lit(5)));
  }

  private static List<String> rows(ArrowReader reader) throws IOException {
    List<String> rows = new ArrayList<>();
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    while (reader.loadNextBatch()) {
      rows.addAll(root.contentToTSVString().lines().skip(1).toList());
    }
    rows.sort(null);
    return rows;
  }

  @Test
  void streamedJoinsGiveTheMaterializedRowsAndFreeTheirBuildSides(EngineMemory memory) throws IOException {
    try (Table left = keys(memory, 200_000, 1000); Table right = keys(memory, 1000, 1000);
        BufferAllocator host = new RootAllocator()) {
      long inputs = memory.allocatedBytes();
      for (int threads = 1; threads <= 2; threads++) {
        ExecutionContext context = new ExecutionContext(memory, threads);
        List<String> expected;
        try (TableReader reader = TableReader.of(joined(left, right, context).toTable(), host)) {
          expected = rows(reader);
        }
        try (ArrowReader reader = joined(left, right, context).stream(host)) {
          assertEquals(expected, rows(reader));
        }
        assertEquals(inputs, memory.allocatedBytes(), "the build side was freed with the reader");
        try (ArrowReader reader = joined(left, right, context).stream(host)) {
          reader.loadNextBatch(); // closed early
        }
        assertEquals(inputs, memory.allocatedBytes());
      }
      assertEquals(0, host.getAllocatedMemory());
    }
  }
}
