package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.vector.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Cases of the spilling aggregation the random properties do not force. */
@ExtendWith(LeakCheck.class)
class SpillingAggregationTest {
  @TempDir
  Path root;

  /**
   * Groups that arrive only in the second half of the input make the first spill guess too few
   * partitions (it saw half the input fill the memory with few groups): partitions that still do not
   * fit are partitioned again, with other hash bits, and the result is still the in-memory one.
   */
  @Test
  void partitionsThatDoNotFitArePartitionedAgain(EngineMemory memory) throws Exception {
    try (EngineMemory data = EngineMemory.create("late groups");
        Table table = SpillTestData.table(data, 1, 300_000, 120_000, true, SpillTestData.Layout.LATE_GROUPS)) {
      Plan plan = Plan.scan(table).aggregate(List.of(col("k").as("k")), Aggregate.countStar("rows"),
          Aggregate.sum(col("d"), "sum_d"), Aggregate.count(col("s"), "n"));
      List<SpillReport> reports = new ArrayList<>();
      try (Table expected = plan.execute(ExecutionContext.builder(memory).spillReports(reports::add).build())) {
        long need = reports.getLast().peakWorkingBytes();
        try (Table actual = plan.execute(ExecutionContext.builder(memory).memoryLimit(need / 64).spillDirectory(root)
            .spillReports(reports::add).build())) {
          SpillReport report = reports.getLast();
          assertTrue(report.depth() >= 2, report.toString());
          SpillTestData.assertSameRows(expected, actual, report.toString());
        }
      }
    }
    try (Stream<Path> left = Files.list(root)) {
      assertEquals(0, left.count());
    }
  }
}
