package dev.memwall.join.pipeline;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.substring;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.bloom.RegisterBlockedBloomFilter;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.join.algorithm.OpenAddressingTable;
import dev.memwall.join.common.JoinType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * When {@link HashProbeStage} puts its Bloom filter in front of the table, that it never changes a
 * result, when an inner join narrows as a semi join, and that it refuses a computed string among the
 * probe columns it carries, by name.
 */
@ExtendWith(LeakCheck.class)
class HashProbeStageTest {
  private static final int BUILD_ROWS = 4000;
  private static final int PROBE_ROWS = 200_000;

  @Test
  void aSelectiveJoinFiltersOnceSampledAndFindsEveryPartner(EngineMemory memory) {
    // build keys are the multiples of 100 below 400,000: 1% of the probe keys 199,999..0 match; their
    // 50,000-byte bitmap is larger than the Bloom filter's cache, and keys probed in descending
    // order would not read it in order
    assertEquals(PROBE_ROWS / 100, probe(memory, 100, 2, i -> PROBE_ROWS - 1 - i, KeyFilter.Kind.BLOOM));
  }

  @Test
  void aSelectiveJoinProbedInKeyOrderTakesABitmapLargerThanTheCache(EngineMemory memory) {
    // the same keys probed in ascending order read the bitmap in order: it need only be smaller than the table
    assertTrue(OpenAddressingTable.bytesFor(BUILD_ROWS) >= 50_000, "the bitmap is smaller than the table");
    assertEquals(PROBE_ROWS / 100, probe(memory, 100, 2, i -> i, KeyFilter.Kind.BITMAP));
    assertEquals(PROBE_ROWS / 100, probe(memory, 100, 1, i -> i, KeyFilter.Kind.BITMAP));
  }

  @Test
  void aSelectiveJoinOnADenseKeyRangeFiltersExactly(EngineMemory memory) {
    // build keys are the even numbers below 8,000 (a 1,000-byte bitmap), probe keys i % 400,000:
    // the even probe keys below 8,000 match, once each (200,000 rows cover half the cycle)
    try (Table build = keys(memory, BUILD_ROWS, i -> 2L * i);
        Table probe = keys(memory, PROBE_ROWS, i -> (long) i % 400_000);
        HashProbeStage stage = HashProbeStage.build(build, List.of("k"), JoinType.INNER, List.of("k"),
            List.of(ColumnType.INT64), List.of(), List.of(), RegisterBlockedBloomFilter.bytesFor(BUILD_ROWS, KeyFilter.BITS_PER_KEY),
            new ExecutionContext(memory, 2));
        Table counted = Plan.scan(probe).stage(stage).aggregate(List.of(), Aggregate.countStar("rows"))
            .execute(new ExecutionContext(memory, 2))) {
      assertEquals(KeyFilter.Kind.BITMAP, stage.filterKind());
      assertEquals(BUILD_ROWS, (Long) counted.batches().getFirst().column(0).getObject(0));
    }
  }

  @Test
  void aJoinWhoseRowsMostlyMatchBuildsNoFilter(EngineMemory memory) {
    // build keys 0..3999, probe keys i % 4000: every row matches
    assertEquals(PROBE_ROWS, probe(memory, 1, 1, i -> i % BUILD_ROWS, KeyFilter.Kind.NONE));
  }

  @Test
  void anInnerJoinWithoutBuildColumnsOverUniqueKeysNarrowsAsASemiJoin(EngineMemory memory) {
    ExecutionContext context = new ExecutionContext(memory, 1);
    try (Table unique = keys(memory, 10, i -> i);
        Table repeated = keys(memory, 10, i -> i % 5);
        Table probe = words(memory);
        HashProbeStage semi = HashProbeStage.build(unique, List.of("k"), JoinType.INNER, List.of("k"),
            List.of(ColumnType.INT64), List.of("k"), List.of(), 1 << 16, context);
        HashProbeStage pairing = HashProbeStage.build(repeated, List.of("k"), JoinType.INNER, List.of("k"),
            List.of(ColumnType.INT64), List.of("k"), List.of(), 1 << 16, context);
        HashProbeStage emitting = HashProbeStage.build(unique, List.of("k"), JoinType.INNER, List.of("k"),
            List.of(ColumnType.INT64), List.of("s"), List.of("k"), 1 << 16, context)) {
      assertTrue(semi.narrowsOnly(), semi.describe());
      assertEquals(List.of("k", "s"), semi.outputColumns(List.of("k", "s")), "every probe column passes on");
      assertFalse(pairing.narrowsOnly(), "keys with two rows each pair");
      assertFalse(emitting.narrowsOnly(), "a build column to emit pairs");
      try (Table narrowed = Plan.scan(probe).stage(semi).execute(context);
          Table paired = Plan.scan(probe).stage(pairing).execute(context)) {
        assertEquals(3, narrowed.rowCount());
        assertEquals(2, narrowed.schema().getFields().size());
        assertEquals(6, paired.rowCount(), "each probe row twice");
        assertEquals(1, paired.schema().getFields().size());
      }
    }
  }

  @Test
  void aComputedStringAmongTheProbeColumnsIsRefusedByName(EngineMemory memory) {
    ExecutionContext context = new ExecutionContext(memory, 1);
    // keys 0..4 twice each: the join pairs (a join over unique keys would narrow and copy nothing)
    try (Table build = keys(memory, 10, i -> i % 5);
        Table probe = words(memory);
        HashProbeStage stage = HashProbeStage.build(build, List.of("k"), JoinType.INNER, List.of("k"),
            List.of(ColumnType.INT64), null, List.of(), 1 << 16, context)) {
      Plan carried = Plan.scan(probe).stage(stage);
      try (Table joined = carried.execute(context)) {
        assertEquals(6, joined.rowCount(), "a string column is carried as it is");
      }
      Plan computed = Plan.scan(probe).project(col("k").as("k"), substring(col("s"), 1, 2).as("prefix")).stage(stage);
      var e = assertThrows(IllegalArgumentException.class, () -> computed.execute(context).close());
      assertEquals("a join carries string columns, not the expression " + substring(col("s"), 1, 2)
          + " named 'prefix'; project it after the join", e.getMessage());
    }
  }

  /** Rows k = 0, 1, 2 with strings s. */
  private static Table words(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k", "s"), List.of(ColumnType.INT64, ColumnType.STRING),
        memory.arrow())) {
      for (int i = 0; i < 3; i++) {
        builder.appendLong(i).appendString(("word" + i).getBytes(StandardCharsets.UTF_8)).endRow();
      }
      return builder.build();
    }
  }

  /**
   * Joins probe keys {@code probeKey(i)} with build keys 0, step, 2 step, ...; checks the filter the
   * stage chose and returns the rows found.
   */
  private static long probe(EngineMemory memory, int step, int threads, java.util.function.IntToLongFunction probeKey,
      KeyFilter.Kind filter) {
    try (Table build = keys(memory, BUILD_ROWS, i -> (long) i * step);
        Table probe = keys(memory, PROBE_ROWS, probeKey);
        HashProbeStage stage = HashProbeStage.build(build, List.of("k"), JoinType.INNER, List.of("k"),
            List.of(ColumnType.INT64), List.of(), List.of(), RegisterBlockedBloomFilter.bytesFor(BUILD_ROWS, KeyFilter.BITS_PER_KEY),
            new ExecutionContext(memory, threads));
        Table counted = Plan.scan(probe).stage(stage).aggregate(List.of(), Aggregate.countStar("rows"))
            .execute(new ExecutionContext(memory, threads))) {
      assertEquals(filter, stage.filterKind(), "filter with step " + step);
      return (Long) counted.batches().getFirst().column(0).getObject(0);
    }
  }

  private static Table keys(EngineMemory memory, int rows, java.util.function.IntToLongFunction key) {
    try (TableBuilder builder = new TableBuilder(List.of("k"), List.of(ColumnType.INT64), memory.arrow())) {
      for (int i = 0; i < rows; i++) {
        builder.appendLong(key.applyAsLong(i)).endRow();
      }
      return builder.build();
    }
  }
}
