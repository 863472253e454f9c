package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.spill.SpillException;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every way a spilling operator can fail ends in one named exception and leaves nothing behind: no
 * byte allocated, no spill directory or file. Spilling off or too little memory even to spill: a
 * {@link BudgetExceededException} naming the operator and its stage; a spill root that cannot be
 * written or a full disk (the spill quota): a {@link SpillException} naming the operator; a
 * cancellation, also in the middle of spilling: a {@link QueryCancelledException}.
 */
@ExtendWith(LeakCheck.class)
class SpillFailureTest {
  private static EngineMemory data;
  private static Table table;

  @TempDir
  Path root;

  @BeforeAll
  static void build() {
    data = EngineMemory.create("spill failure data");
    table = SpillTestData.table(data, 7, 300_000, 150_000, false);
  }

  @AfterAll
  static void free() {
    table.close();
    data.close();
  }

  private static Plan aggregation() {
    return Plan.scan(table).aggregate(List.of(col("k").as("k"), col("s").as("s")), Aggregate.countStar("rows"),
        Aggregate.sum(col("d"), "sum_d"), Aggregate.max(col("f"), "max_f"));
  }

  private static Plan sort() {
    return Plan.scan(table).filter(col("i").ne(lit(13))).orderBy(SortKey.asc("s"), SortKey.desc("k"));
  }

  private static Plan plan(String operator) {
    return operator.equals("aggregation") ? aggregation() : sort();
  }

  private static String name(String operator) {
    return operator.equals("aggregation") ? "hash aggregation" : "sort";
  }

  /** Nothing allocated (beyond recycled memory) and no spill directory or file left. */
  private void assertNothingLeft(EngineMemory memory, int directories) throws IOException {
    assertEquals(0, memory.allocatedBytes(), "bytes still allocated");
    assertEquals(directories, SpillDirectory.liveDirectories(), "spill directories left");
    try (Stream<Path> left = Files.walk(root)) {
      assertEquals(List.of(root), left.toList(), "files left under the spill root");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"aggregation", "sort"})
  void withSpillingOffTheBudgetErrorNamesTheOperatorAndStage(String operator, EngineMemory memory) throws IOException {
    int directories = SpillDirectory.liveDirectories();
    for (int threads = 1; threads <= 2; threads++) {
      ExecutionContext context = ExecutionContext.builder(memory).threads(threads).memoryLimit(2 << 20)
          .spillDirectory(root).spilling(false).build();
      BudgetExceededException e = assertThrows(BudgetExceededException.class, () -> plan(operator).execute(context).close());
      assertEquals(name(operator), e.operator(), e.getMessage());
      assertEquals(operator.equals("aggregation") ? "build" : "collect", e.stage(), e.getMessage());
      assertTrue(e.getMessage().startsWith(name(operator) + " (" + e.stage() + ") needs "), e.getMessage());
      assertTrue(e.getMessage().contains("working memory"), "names the budget: " + e.getMessage());
      assertNothingLeft(memory, directories);
    }
  }

  @Test
  void tooLittleMemoryEvenToSpillNamesTheOperator(EngineMemory memory) throws IOException {
    int directories = SpillDirectory.liveDirectories();
    ExecutionContext context = ExecutionContext.builder(memory).memoryLimit(48 << 10).spillDirectory(root).build();
    BudgetExceededException e = assertThrows(BudgetExceededException.class, () -> aggregation().execute(context).close());
    assertEquals("hash aggregation", e.operator(), e.getMessage());
    assertTrue(e.getMessage().contains("give the query more memory"), e.getMessage());
    assertNothingLeft(memory, directories);
  }

  @ParameterizedTest
  @ValueSource(strings = {"aggregation", "sort"})
  void aSpillRootThatCannotBeCreatedNamesTheOperator(String operator, EngineMemory memory) throws IOException {
    int directories = SpillDirectory.liveDirectories();
    Path file = Files.writeString(root.resolve("not-a-directory"), "x");
    ExecutionContext context = ExecutionContext.builder(memory).threads(2).memoryLimit(2 << 20)
        .spillDirectory(file.resolve("spill")).build();
    SpillException e = assertThrows(SpillException.class, () -> plan(operator).execute(context).close());
    assertEquals(SpillException.Reason.IO, e.reason());
    assertEquals(name(operator), e.operator());
    assertTrue(e.getMessage().startsWith(name(operator) + ": cannot create a spill directory under "), e.getMessage());
    Files.delete(file);
    assertNothingLeft(memory, directories);
  }

  @ParameterizedTest
  @ValueSource(strings = {"aggregation", "sort"})
  void aReadOnlySpillRootNamesTheOperator(String operator, EngineMemory memory) throws IOException {
    int directories = SpillDirectory.liveDirectories();
    Path readOnly = Files.createDirectory(root.resolve("read-only"));
    Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-xr-xr-x"));
    try {
      Assumptions.assumeFalse(Files.isWritable(readOnly), "the superuser writes into read-only directories");
      ExecutionContext context = ExecutionContext.builder(memory).memoryLimit(2 << 20).spillDirectory(readOnly).build();
      SpillException e = assertThrows(SpillException.class, () -> plan(operator).execute(context).close());
      assertEquals(name(operator), e.operator());
    } finally {
      Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("rwxr-xr-x"));
      Files.delete(readOnly);
    }
    assertNothingLeft(memory, directories);
  }

  @ParameterizedTest
  @ValueSource(strings = {"aggregation", "sort"})
  void aFullDiskNamesTheOperator(String operator, EngineMemory memory) throws IOException {
    int directories = SpillDirectory.liveDirectories();
    for (int threads = 1; threads <= 2; threads++) {
      ExecutionContext context = ExecutionContext.builder(memory).threads(threads).memoryLimit(2 << 20)
          .spillDirectory(root).spillQuota(1 << 20).build();
      SpillException e = assertThrows(SpillException.class, () -> plan(operator).execute(context).close());
      assertEquals(SpillException.Reason.DISK_FULL, e.reason(), e.getMessage());
      assertEquals(name(operator), e.operator());
      assertTrue(e.getMessage().contains("spill quota of 1048576 bytes"), e.getMessage());
      assertNothingLeft(memory, directories);
    }
  }

  /**
   * A host cancels at moments spread over the query's run, so that some cancellations land while
   * operators spill or merge spilled data: each run ends with its result or with the cancellation,
   * and nothing is left either way.
   */
  @ParameterizedTest
  @ValueSource(strings = {"aggregation", "sort"})
  void cancellationMidSpillLeavesNothing(String operator, EngineMemory memory) throws Exception {
    int directories = SpillDirectory.liveDirectories();
    ExecutionContext timing = ExecutionContext.builder(memory).threads(2).memoryLimit(2 << 20).spillDirectory(root)
        .build();
    long start = System.nanoTime();
    plan(operator).execute(timing).close();
    long nanos = System.nanoTime() - start;
    int cancelledWhileSpilling = 0;
    ScheduledExecutorService host = Executors.newSingleThreadScheduledExecutor();
    try {
      for (int i = 1; i <= 12; i++) {
        CancellationToken token = new CancellationToken();
        ExecutionContext context = timing.toBuilder().cancellation(token).build();
        boolean[] spilling = new boolean[1];
        host.schedule(() -> {
          spilling[0] = SpillDirectory.liveDirectories() > directories;
          token.cancel();
        }, nanos * i / 10, TimeUnit.NANOSECONDS);
        try {
          plan(operator).execute(context).close();
        } catch (QueryCancelledException e) {
          assertEquals(QueryCancelledException.Reason.CANCELLED, e.reason());
          Thread.sleep(1); // the scheduled task has run: it cancelled
          cancelledWhileSpilling += spilling[0] ? 1 : 0;
        }
        assertNothingLeft(memory, directories);
      }
    } finally {
      host.shutdownNow();
      host.awaitTermination(10, TimeUnit.SECONDS);
    }
    assertTrue(cancelledWhileSpilling > 0, "no cancellation landed while the operator spilled");
  }
}
