package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.operator.Sorter;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.spill.SpillReport;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sort's heap arrays that grow with the rows (its row references and merge scratch) are charged
 * to the budget of the memory it runs under while they live: the budget's peak counts them, a budget
 * that holds the rows but not their references refuses them by name and keeps nothing, and a
 * spilling sort cuts its runs small enough for their references. The rows are one int32 column, a
 * few bytes each against the references' 16, so uncharged references would go unseen.
 */
@ExtendWith(LeakCheck.class)
class SortHeapChargeTest {
  private static final int ROWS = 200_000;
  private static final List<SortKey> KEYS = List.of(SortKey.asc("v"));
  /** The rows, in a memory of their own, apart from the memories the tests measure. */
  private static EngineMemory data;
  private static Table table;

  @BeforeAll
  static void buildRows() {
    data = EngineMemory.create("sort heap data");
    Random random = new Random(11);
    try (TableBuilder builder = new TableBuilder(List.of("v"), List.of(ColumnType.INT32), null, data.arrow())) {
      for (int r = 0; r < ROWS; r++) {
        builder.appendLong(random.nextInt(1_000_000));
        builder.endRow();
      }
      table = builder.build();
    }
  }

  @AfterAll
  static void freeRows() {
    table.close();
    data.close();
  }

  /** ORDER BY after a pipeline step, so that it runs as an {@code ExternalSort}. */
  private static Plan plan() {
    return Plan.scan(table).filter(col("v").ne(lit(-1))).orderBy(KEYS.toArray(SortKey[]::new));
  }

  /** Memory that keeps no freed memory, so that its budget shows exactly what is held. */
  private static EngineMemory exact(long limit) {
    return EngineMemory.create(MemoryBudget.of("sort", limit), 0);
  }

  @Test
  void aFullSortsPeakIncludesItsReferences() {
    try (EngineMemory memory = exact(Long.MAX_VALUE)) {
      try (Table sorted = Sorter.sort(table, KEYS, Long.MAX_VALUE, memory)) {
        assertEquals(ROWS, sorted.rowCount());
        long result = memory.allocatedBytes();
        assertTrue(memory.budget().peakBytes() >= (long) Sorter.REFERENCE_BYTES * ROWS + result,
            "peak " + memory.budget().peakBytes() + " beside a result of " + result);
      }
      assertEquals(0, memory.budget().reservedBytes(), "the references' charge is released");
    }
  }

  @Test
  void aTopNsPeakIncludesItsReferences() {
    try (EngineMemory memory = exact(Long.MAX_VALUE)) {
      try (Table sorted = Sorter.sort(table, KEYS, 10, memory)) {
        assertEquals(10, sorted.rowCount());
        assertTrue(memory.budget().peakBytes() >= 8L * ROWS, "peak " + memory.budget().peakBytes());
      }
      assertEquals(0, memory.budget().reservedBytes(), "the references' charge is released");
    }
  }

  @Test
  void aBudgetWithoutRoomForTheReferencesRefusesThemAndKeepsNothing() {
    try (EngineMemory memory = exact((long) Sorter.REFERENCE_BYTES * ROWS - 1)) {
      assertThrows(BudgetExceededException.class, () -> Sorter.sort(table, KEYS, Long.MAX_VALUE, memory).close());
      assertEquals(0, memory.budget().reservedBytes(), "nothing stays charged");
    }
  }

  /** The working memory an unlimited sort needed, with the rows in memory and their references. */
  private static long need(EngineMemory memory, List<SpillReport> reports, Table expected) {
    long need = reports.getLast().peakWorkingBytes();
    assertEquals(ROWS, expected.rowCount());
    assertTrue(need >= (long) Sorter.REFERENCE_BYTES * ROWS, "the working memory's peak " + need
        + " counts the references of " + ROWS + " rows");
    return need;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void withSpillingOffRowsThatFitButNotTheirReferencesFailByName(int threads, EngineMemory memory, @TempDir Path root)
      throws IOException {
    List<SpillReport> reports = new ArrayList<>();
    long need;
    try (Table expected = plan().execute(ExecutionContext.builder(memory).threads(threads)
        .spillReports(reports::add).build())) {
      need = need(memory, reports, expected);
    }
    int directories = SpillDirectory.liveDirectories();
    // room for the rows and a quarter of their references
    ExecutionContext context = ExecutionContext.builder(memory).threads(threads).memoryLimit(need - 12L * ROWS)
        .spillDirectory(root).spilling(false).build();
    BudgetExceededException e = assertThrows(BudgetExceededException.class, () -> plan().execute(context).close());
    assertEquals("sort", e.operator(), e.getMessage());
    assertEquals("output", e.stage(), e.getMessage());
    assertEquals(0, memory.allocatedBytes(), "bytes still allocated");
    SpillTestData.assertNoSpillLeft(root, directories);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void withSpillingOnRunsLeaveRoomForTheirReferences(int threads, EngineMemory memory, @TempDir Path root)
      throws IOException {
    List<SpillReport> reports = new ArrayList<>();
    try (Table expected = plan().execute(ExecutionContext.builder(memory).threads(threads)
        .spillReports(reports::add).build())) {
      long need = need(memory, reports, expected);
      for (long limit : new long[] {need - 12L * ROWS, need / 8, need / 64}) {
        int directories = SpillDirectory.liveDirectories();
        try (Table actual = plan().execute(ExecutionContext.builder(memory).threads(threads).memoryLimit(limit)
            .spillDirectory(root).spillReports(reports::add).build())) {
          SpillReport report = reports.getLast();
          String what = "at " + limit + " of " + need + " bytes on " + threads + " threads: " + report;
          assertTrue(report.spilled(), what);
          assertTrue(report.peakWorkingBytes() <= limit, what);
          SpillTestData.assertSameRowsInOrder(expected, actual, what); // the rows are their key: ties are equal
        }
        SpillTestData.assertNoSpillLeft(root, directories);
      }
    }
  }
}
