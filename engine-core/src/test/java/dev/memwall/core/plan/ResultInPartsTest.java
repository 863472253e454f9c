package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A sort or an aggregation that spills hands its result out in parts ({@link Plan#parts}): a memory that
 * cannot hold the result, where {@link Plan#execute} fails by name, still gives every row (a sort's in
 * order), a part at a time; closing the parts early, or cancelling between parts, frees every byte and
 * spill file.
 */
@ExtendWith(LeakCheck.class)
class ResultInPartsTest {
  private static final int ROWS = 300_000;

  @TempDir Path root;

  /** The operators that hand out a spilled result in parts. */
  enum Shape {
    SORT, AGGREGATION;

    Plan plan(Table table) {
      // the filter makes a pipeline the operator takes its rows from (a table sorted with no step between
      // is sorted in place)
      Plan filtered = Plan.scan(table).filter(col("i").ne(lit(13)));
      return this == SORT ? filtered.orderBy(SortKey.asc("k"), SortKey.desc("i"))
          : filtered.aggregate(List.of(col("k").as("k")), Aggregate.countStar("n"), Aggregate.sum(col("d"), "sum_d"),
              Aggregate.min(col("i"), "min_i"));
    }

    /** The rows as the result's order defines them: a sort's as they come, an aggregation's sorted. */
    List<String> ordered(List<List<Object>> rows) {
      List<String> lines = rows.stream().map(Object::toString).toList();
      return this == SORT ? lines : lines.stream().sorted().toList();
    }
  }

  /** The result's rows as {@code shape} orders them, and the bytes the result takes. */
  private record Expected(List<String> rows, long bytes) {}

  private static Expected expected(Shape shape, Table table, EngineMemory data) {
    long before = data.allocatedBytes();
    try (Table result = shape.plan(table).execute(new ExecutionContext(data, 1))) {
      return new Expected(shape.ordered(SpillTestData.rows(result)), data.allocatedBytes() - before);
    }
  }

  /** What a test does over its table, in a memory of half the result's bytes. */
  private interface Check {
    void run(Table table, Expected expected, EngineMemory memory, ExecutionContext.Builder bounded, int directories)
        throws IOException;
  }

  /**
   * Runs {@code check} over a table made from {@code seed}, in a memory of half the result's bytes with an
   * eighth of them for the operator's working memory; then every byte is free and no spill file is left.
   */
  private void inHalfTheMemory(Shape shape, long seed, boolean manyStrings, EngineMemory data, Check check)
      throws IOException {
    try (Table table = SpillTestData.table(data, seed, ROWS, 100_000, manyStrings)) {
      Expected expected = expected(shape, table, data);
      int directories = SpillDirectory.liveDirectories();
      try (EngineMemory memory = EngineMemory.create(MemoryBudget.of("half the result", expected.bytes() / 2))) {
        check.run(table, expected, memory,
            ExecutionContext.builder(memory).threads(1).memoryLimit(expected.bytes() / 8).spillDirectory(root),
            directories);
        assertEquals(0, memory.allocatedBytes());
        SpillTestData.assertNoSpillLeft(root, directories);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aResultLargerThanItsMemoryIsReadInParts(Shape shape, EngineMemory data) throws IOException {
    inHalfTheMemory(shape, 11, false, data, (table, expected, memory, bounded, directories) -> {
      List<SpillReport> reports = new ArrayList<>();
      ExecutionContext context = bounded.spillReports(reports::add).build();
      BudgetExceededException whole = assertThrows(BudgetExceededException.class,
          () -> shape.plan(table).execute(context).close());
      assertTrue(whole.getMessage().contains("output"), whole.getMessage());
      SpillTestData.assertNoSpillLeft(root, directories);

      List<List<Object>> rows = new ArrayList<>();
      int parts = 0;
      try (TableReader.Tables result = shape.plan(table).parts(context, null)) {
        for (Table next = result.next(); next != null; next = result.next()) {
          try (Table part = next) {
            rows.addAll(SpillTestData.rows(part));
            parts++;
          }
        }
      }
      assertEquals(expected.rows(), shape.ordered(rows));
      assertTrue(parts >= 4, parts + " parts");
      assertTrue(reports.getLast().spilled(), reports.getLast().toString());
    });
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void closingAfterTheFirstPartFreesTheOperatorAndItsRuns(Shape shape, EngineMemory data) throws IOException {
    inHalfTheMemory(shape, 12, true, data, (table, expected, memory, bounded, directories) -> {
      try (TableReader.Tables result = shape.plan(table).parts(bounded.build(), null)) {
        try (Table first = result.next()) {
          assertNotNull(first);
          assertTrue(first.rowCount() > 0 && first.rowCount() < expected.rows().size(), first.rowCount() + " rows");
          if (shape == Shape.SORT) {
            assertEquals(expected.rows().subList(0, (int) first.rowCount()), shape.ordered(SpillTestData.rows(first)));
          }
        }
        assertTrue(SpillDirectory.liveDirectories() > directories, "the runs are on disk while parts are left");
      }
    });
  }

  /** Nothing else checks the token between parts: the start of each round does. */
  @ParameterizedTest
  @EnumSource(Shape.class)
  void aCancelBetweenPartsStopsByNameAndFreesEverything(Shape shape, EngineMemory data) throws IOException {
    inHalfTheMemory(shape, 13, false, data, (table, expected, memory, bounded, directories) -> {
      CancellationToken token = new CancellationToken();
      try (TableReader.Tables result = shape.plan(table).parts(bounded.cancellation(token).build(), null)) {
        result.next().close();
        token.cancel();
        assertThrows(QueryCancelledException.class, result::next);
      }
    });
  }

  /**
   * A host that promises more than it grants (Spark's pool, shared with other tasks, below the task's
   * limit): the sort collects its rows within the grant, is refused the memory of a sorted copy beside
   * them, and spills them as runs and merges them in parts instead of failing.
   */
  @Test
  void aSortRefusedItsSortedCopySpillsAndIsReadInParts(EngineMemory data) throws IOException {
    try (Table table = SpillTestData.table(data, 14, ROWS, 100_000, false)) {
      Expected expected = expected(Shape.SORT, table, data);
      int directories = SpillDirectory.liveDirectories();
      long cap = expected.bytes() * 3 / 2;
      MemoryBudget.Growth promising = new MemoryBudget.Growth() {
        private long granted;

        @Override
        public long grant(long bytes) {
          long given = Math.min(bytes, cap - granted);
          granted += given;
          return given;
        }

        @Override
        public long growableBytes() {
          return 1L << 40;
        }
      };
      try (EngineMemory memory = EngineMemory.create(MemoryBudget.growing("a promising host", 0, promising))) {
        List<SpillReport> reports = new ArrayList<>();
        ExecutionContext context = ExecutionContext.builder(memory).threads(1).spillDirectory(root)
            .spillReports(reports::add).build();
        List<List<Object>> rows = new ArrayList<>();
        try (TableReader.Tables result = Shape.SORT.plan(table).parts(context, null)) {
          for (Table next = result.next(); next != null; next = result.next()) {
            try (Table part = next) {
              rows.addAll(SpillTestData.rows(part));
            }
          }
        }
        assertEquals(expected.rows(), Shape.SORT.ordered(rows));
        assertTrue(reports.getLast().spilled(), reports.getLast().toString());
        assertEquals(0, memory.allocatedBytes());
        SpillTestData.assertNoSpillLeft(root, directories);
      }
    }
  }
}
