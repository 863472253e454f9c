package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.AggregateLayout;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Grouped and global sums of values near the int64 limits against BigInteger: a sum is either
 * exact or an {@link ArithmeticException}, never a wrapped value; a total outside int64 always
 * throws.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class SumOverflowProperties {

  @Property(tries = 300)
  void sumsAreExactOrFail(@ForAll @Size(max = 3000) List<@IntRange(min = -4, max = 4) Integer> steps,
      @ForAll @IntRange(min = 1, max = 5) int groups, @ForAll boolean grouped, @ForAll AggregateLayout layout,
      EngineMemory memory) {
    Map<Long, BigInteger> expected = new TreeMap<>();
    boolean prefixesFit = true;
    try (TableBuilder builder = new TableBuilder(List.of("g", "v"), List.of(ColumnType.INT64, ColumnType.INT64),
        memory.arrow())) {
      for (int i = 0; i < steps.size(); i++) {
        long group = grouped ? i % groups : 0;
        // Values of a quarter of the range and small ones mixed: lanes and totals come near the limits.
        long value = steps.get(i) * (Long.MAX_VALUE / 4) + i;
        builder.appendLong(group).appendLong(value).endRow();
        prefixesFit &= fitsInLong(expected.merge(group, BigInteger.valueOf(value), BigInteger::add));
      }
      try (Table table = builder.build()) {
        List<dev.memwall.core.expr.NamedExpr> keys = grouped ? List.of(col("g").as("g")) : List.of();
        Plan plan = Plan.scan(table).aggregate(keys, Aggregate.sum(col("v"), "total"));
        if (grouped) {
          plan = plan.orderBy(SortKey.asc("g"));
        }
        boolean fits = expected.values().stream().allMatch(SumOverflowProperties::fitsInLong);
        int threads = 1 + steps.size() % 2;
        try (Table result = plan.execute(new ExecutionContext(memory, threads, layout))) {
          assertTrue(fits, "a total outside int64 must throw: " + expected);
          int row = 0;
          for (Batch batch : result.batches()) {
            for (int r = 0; r < batch.rowCount(); r++, row++) {
              var totals = batch.column(grouped ? 1 : 0);
              long group = grouped ? batch.column(0).getLong(r) : 0;
              // SQL: the global SUM of no rows is NULL.
              BigInteger actual = totals.isNull(r) ? null : BigInteger.valueOf(totals.getLong(r));
              assertEquals(expected.get(group), actual, "group " + group);
            }
          }
          assertEquals(steps.isEmpty() && grouped ? 0 : Math.max(expected.size(), grouped ? 0 : 1), row);
        } catch (ArithmeticException overflow) {
          // Allowed only where some running sum in row order leaves int64 (or, on two threads, may).
          assertTrue(!prefixesFit || threads > 1, "one thread, every running sum fits, yet: " + overflow);
        }
      }
    }
  }

  private static boolean fitsInLong(BigInteger value) {
    return value.bitLength() < 64;
  }
}
