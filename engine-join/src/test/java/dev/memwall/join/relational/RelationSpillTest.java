package dev.memwall.join.relational;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.join.pipeline.HashProbeStage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Joins through {@link Relation} whose build side does not fit spill through {@link dev.memwall.join.Join}'s
 * hybrid hash join and give the in-memory result; with spilling off the refusal names the hash join
 * and its build stage. Nothing is left allocated or on disk either way.
 */
@ExtendWith(LeakCheck.class)
class RelationSpillTest {
  private static final int ORDERS = 100_000;
  /**
   * Order keys 3 apart: dense enough for the pipelined join's dense key table, a quarter of its hash
   * table, which the memory limit of the spilling case refuses too before the hash table.
   */
  private static final long DENSE = 3;
  /**
   * Order keys 97 apart: too sparse for a dense key table, so the build is the hash table whose size
   * the budget cases are cut to.
   */
  private static final long SPARSE = 97;

  @TempDir
  Path root;

  /**
   * orders (o_key, o_cust, o_flag) and lines (l_key, l_qty), lines about four per order, some without
   * one; order keys {@code stride} apart.
   */
  private static Table orders(EngineMemory memory, long stride) {
    try (TableBuilder builder = new TableBuilder(List.of("o_key", "o_cust", "o_flag"),
        List.of(ColumnType.INT64, ColumnType.INT32, ColumnType.STRING), memory.arrow())) {
      Random random = new Random(3);
      for (int o = 0; o < ORDERS; o++) {
        builder.appendLong(o * stride).appendLong(random.nextInt(5000));
        if (random.nextInt(50) == 0) {
          builder.appendNull();
        } else {
          builder.appendString(new byte[] {(byte) ('A' + random.nextInt(3))});
        }
        builder.endRow();
      }
      return builder.build();
    }
  }

  private static Table lines(EngineMemory memory, long stride) {
    try (TableBuilder builder = new TableBuilder(List.of("l_key", "l_qty"), List.of(ColumnType.INT64, ColumnType.INT32),
        memory.arrow())) {
      Random random = new Random(4);
      for (int l = 0; l < 4 * ORDERS; l++) {
        if (random.nextInt(100) == 0) {
          builder.appendNull();
        } else {
          builder.appendLong(random.nextInt(ORDERS + ORDERS / 10) * stride); // some keys match no order
        }
        builder.appendLong(1 + random.nextInt(50)).endRow();
      }
      return builder.build();
    }
  }

  private enum Kind { INNER, LEFT_OUTER, SEMI, ANTI }

  private static Table query(Table lines, Table orders, ExecutionContext context, Kind kind) {
    return query(lines, orders, context, kind, 3);
  }

  /** The join of the lines with more than {@code quantity} to the orders. */
  private static Table query(Table lines, Table orders, ExecutionContext context, Kind kind, int quantity) {
    Relation l = Relation.scan(lines, context).filter(col("l_qty").gt(lit(quantity)));
    Relation o = Relation.scan(orders, context);
    Relation joined = switch (kind) {
      case INNER -> l.join(o).on("l_key", "o_key").keep("l_key", "l_qty", "o_cust", "o_flag");
      case LEFT_OUTER -> l.leftOuterJoin(o).on("l_key", "o_key").keep("l_key", "l_qty", "o_flag");
      case SEMI -> l.semiJoin(o).on("l_key", "o_key").keep("l_key", "l_qty");
      case ANTI -> l.antiJoin(o).on("l_key", "o_key").keep("l_key", "l_qty");
    };
    return joined.toTable();
  }

  @Test
  void aBuildSideOverTheMemoryLimitSpillsAndGivesTheInMemoryResult(EngineMemory memory) throws IOException {
    int directories = SpillDirectory.liveDirectories();
    try (Table orders = orders(memory, DENSE); Table lines = lines(memory, DENSE)) {
      for (Kind kind : Kind.values()) {
        for (int threads = 1; threads <= 2; threads++) {
          List<String> expected;
          try (Table result = query(lines, orders, ExecutionContext.builder(memory).threads(threads).build(), kind)) {
            expected = RelationTestData.rows(result);
          }
          List<SpillReport> reports = new ArrayList<>();
          ExecutionContext limited = ExecutionContext.builder(memory).threads(threads)
              .memoryLimit(HashProbeStage.bytesFor(ORDERS) / 8).spillDirectory(root).spillReports(reports::add).build();
          try (Table result = query(lines, orders, limited, kind)) {
            assertEquals(expected, RelationTestData.rows(result), kind + " on " + threads + " threads");
          }
          assertTrue(reports.stream().anyMatch(r -> r.operator().equals("hash join") && r.spilled()),
              kind + ": " + reports);
          assertNothingLeft(directories);
        }
      }
    }
  }

  @Test
  void aBuildSideTheBudgetRefusesSpillsAndGivesTheInMemoryResult(EngineMemory memory) throws IOException {
    int directories = SpillDirectory.liveDirectories();
    try (Table orders = orders(memory, SPARSE); Table lines = lines(memory, SPARSE)) {
      List<String> expected;
      try (Table result = query(lines, orders, ExecutionContext.singleThreaded(memory), Kind.INNER, 45)) {
        expected = RelationTestData.rows(result);
      }
      long peak;
      try (EngineMemory measured = EngineMemory.create("measured")) {
        query(lines, orders, ExecutionContext.singleThreaded(measured), Kind.INNER, 45).close();
        peak = measured.budget().peakBytes();
      }
      // the pipelined join's peak less half its hash table: the few lines left by the filter, joined
      // by the hybrid hash join with the orders' partitions that fit and the others spilled, do fit
      long budget = peak - HashProbeStage.bytesFor(ORDERS) / 2;
      try (EngineMemory tight = EngineMemory.create(MemoryBudget.of("tight query", budget))) {
        List<SpillReport> reports = new ArrayList<>();
        ExecutionContext context = ExecutionContext.builder(tight).threads(2).spillDirectory(root)
            .spillReports(reports::add).build();
        try (Table result = query(lines, orders, context, Kind.INNER, 45)) {
          assertEquals(expected, RelationTestData.rows(result));
        }
        assertTrue(reports.stream().anyMatch(r -> r.operator().equals("hash join")), reports.toString());
        assertEquals(0, tight.allocatedBytes());
      }
      assertNothingLeft(directories);
    }
  }

  @Test
  void withSpillingOffTheRefusalNamesTheHashJoinAndItsBuild(EngineMemory memory) throws IOException {
    int directories = SpillDirectory.liveDirectories();
    try (Table orders = orders(memory, SPARSE); Table lines = lines(memory, SPARSE)) {
      try (EngineMemory tight = EngineMemory.create(MemoryBudget.of("tight query", HashProbeStage.bytesFor(ORDERS) / 2))) {
        ExecutionContext context = ExecutionContext.builder(tight).spilling(false).build();
        BudgetExceededException e = assertThrows(BudgetExceededException.class,
            () -> query(lines, orders, context, Kind.INNER).close());
        assertEquals("hash join", e.operator());
        assertEquals("build", e.stage());
        assertTrue(e.getMessage().startsWith("hash join (build) needs ") && e.getMessage().contains("tight query")
            && e.getMessage().contains("spilling is off"), e.getMessage());
        assertEquals(0, tight.allocatedBytes());
      }
      assertNothingLeft(directories);
    }
  }

  /** An aggregation of a relation spills as a plan's does. */
  @Test
  void aRelationsAggregationSpills(EngineMemory memory) {
    try (Table lines = lines(memory, DENSE)) {
      List<String> expected;
      List<SpillReport> reports = new ArrayList<>();
      try (Table result = Relation.scan(lines, ExecutionContext.builder(memory).spillReports(reports::add).build())
          .aggregate(List.of(col("l_key").as("k")), Aggregate.sum(col("l_qty"), "q")).toTable()) {
        expected = RelationTestData.rows(result);
      }
      long need = reports.getLast().peakWorkingBytes();
      ExecutionContext limited = ExecutionContext.builder(memory).memoryLimit(need / 8).spillDirectory(root)
          .spillReports(reports::add).build();
      try (Table result = Relation.scan(lines, limited).aggregate(List.of(col("l_key").as("k")),
          Aggregate.sum(col("l_qty"), "q")).toTable()) {
        assertEquals(expected, RelationTestData.rows(result));
      }
      assertTrue(reports.getLast().spilled(), reports.getLast().toString());
    }
  }

  private void assertNothingLeft(int directories) throws IOException {
    assertEquals(directories, SpillDirectory.liveDirectories());
    try (Stream<Path> left = Files.list(root)) {
      assertEquals(0, left.count(), "files left under the spill root");
    }
  }
}
