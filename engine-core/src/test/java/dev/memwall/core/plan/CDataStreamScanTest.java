package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Data in through the Arrow C stream interface, as a native host (or another library) hands it over:
 * the imported {@code ArrowReader} is scanned batch by batch and every imported batch is released.
 */
@ExtendWith(LeakCheck.class)
class CDataStreamScanTest {

  @Test
  void aCDataStreamIsScannedBatchByBatch(EngineMemory memory) {
    int rows = 3 * TableBuilder.BATCH_ROWS + 17;
    long expectedSum = 0;
    long expectedCount = 0;
    try (BufferAllocator host = new RootAllocator()) {
      Table source;
      try (TableBuilder builder = new TableBuilder(List.of("k", "name", "day"),
          List.of(ColumnType.INT64, ColumnType.STRING, ColumnType.DATE), memory.arrow())) {
        for (int i = 0; i < rows; i++) {
          builder.appendLong(i).appendString(("n" + i % 5).getBytes(StandardCharsets.UTF_8)).appendLong(9000 + i % 30)
              .endRow();
          if (i % 5 == 2) {
            expectedSum += i;
            expectedCount++;
          }
        }
        source = builder.build();
      }
      try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(host)) {
        Data.exportArrayStream(host, TableReader.of(source, host), stream); // as a producer elsewhere would
        try (BatchStream imported = BatchStream.of(Data.importArrayStream(host, stream));
            Table result = Plan.scan(imported).filter(col("day").ge(date(java.time.LocalDate.ofEpochDay(9000))))
                .aggregate(List.of(col("name").as("name")), Aggregate.sum(col("k"), "s"), Aggregate.countStar("n"))
                .orderBy(SortKey.asc("name"))
                .execute(new ExecutionContext(memory, 2))) {
          assertEquals(5, result.rowCount());
          var batch = result.batches().getFirst();
          assertEquals("n2", batch.column("name").getObject(2).toString());
          assertEquals(expectedSum, ((BigIntVector) batch.column("s").arrow()).get(2));
          assertEquals(expectedCount, ((BigIntVector) batch.column("n").arrow()).get(2));
        }
      }
      assertEquals(0, host.getAllocatedMemory(), "every imported batch was released");
    }
  }
}
