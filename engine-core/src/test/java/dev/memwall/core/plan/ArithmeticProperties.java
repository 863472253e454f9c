package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BinaryOperator;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Integral and decimal {@code +}, {@code -} and {@code *} against {@link BigInteger}: exact, or an
 * {@link ArithmeticException} when a kept row's result leaves int64, never a wrapped value; a row
 * that overflows but is filtered out does not fail the query. The values mix magnitudes within a
 * chunk (small ones, ones near 2<sup>31</sup> whose products approach the limit, and ones near the
 * type's limits, and wide values with narrow ones, whose bits add up to just above what fits), so both the kernels' unchecked loops (taken when a chunk's magnitudes prove them
 * safe) and their checked loops run, over whole and filtered chunks.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class ArithmeticProperties {
  /** The values' range. */
  enum Magnitude { SMALL, NEAR_2_31, MIXED_LIMITS, WIDE_BY_NARROW }

  /** {@code a op b} over INT64, and {@code a op d} with {@code d} a DECIMAL(2), so {@code a} is rescaled by 100 first. */
  enum Operation {
    ADD(Expr::add, BigInteger::add), SUB(Expr::sub, BigInteger::subtract), MUL(Expr::mul, BigInteger::multiply);

    final BinaryOperator<Expr> expr;
    final BinaryOperator<BigInteger> reference;

    Operation(BinaryOperator<Expr> expr, BinaryOperator<BigInteger> reference) {
      this.expr = expr;
      this.reference = reference;
    }
  }

  @Property(tries = 200)
  void arithmeticIsExactOrFails(@ForAll long seed, @ForAll Magnitude magnitude, @ForAll Operation operation,
      @ForAll boolean decimal, @ForAll boolean filtered, @ForAll @IntRange(min = 1, max = 2) int threads,
      EngineMemory memory) {
    Random random = new Random(seed);
    int rows = 1 + random.nextInt(5000);
    long[] a = new long[rows];
    long[] b = new long[rows];
    boolean[] kept = new boolean[rows];
    try (TableBuilder builder = new TableBuilder(List.of("a", "b", "keep"),
        List.of(ColumnType.INT64, decimal ? ColumnType.decimal(2) : ColumnType.INT64, ColumnType.INT64), memory.arrow())) {
      for (int i = 0; i < rows; i++) {
        a[i] = magnitude == Magnitude.WIDE_BY_NARROW ? (random.nextLong() >> 4) : value(random, magnitude);
        b[i] = magnitude == Magnitude.WIDE_BY_NARROW ? random.nextInt(601) - 300 : value(random, magnitude);
        kept[i] = !filtered || random.nextInt(50) != 0;
        builder.appendLong(a[i]).appendLong(b[i]).appendLong(kept[i] ? 1 : 0).endRow();
      }
      List<BigInteger> expected = new ArrayList<>();
      boolean overflows = false;
      for (int i = 0; i < rows; i++) {
        if (kept[i]) {
          BigInteger left = BigInteger.valueOf(a[i]);
          if (decimal && operation != Operation.MUL) {
            left = left.multiply(BigInteger.valueOf(100)); // to the decimal's scale before adding
          }
          BigInteger result = operation.reference.apply(left, BigInteger.valueOf(b[i]));
          overflows |= result.bitLength() > 63;
          expected.add(result);
        }
      }
      try (Table table = builder.build()) {
        Plan plan = Plan.scan(table).filter(col("keep").eq(lit(1)))
            .project(operation.expr.apply(col("a"), col("b")).as("result"));
        ExecutionContext context = new ExecutionContext(memory, threads);
        if (overflows) {
          assertThrows(ArithmeticException.class, () -> plan.execute(context).close());
          return;
        }
        try (Table result = plan.execute(context)) {
          List<BigInteger> actual = new ArrayList<>();
          for (Batch batch : result.batches()) {
            for (int r = 0; r < batch.rowCount(); r++) {
              actual.add(BigInteger.valueOf(batch.column(0).getLong(r)));
            }
          }
          assertEquals(expected, actual);
        }
      }
    }
  }

  private static long value(Random random, Magnitude magnitude) {
    return switch (magnitude) {
      case SMALL, WIDE_BY_NARROW -> random.nextInt(2_000_001) - 1_000_000;
      case NEAR_2_31 -> (random.nextBoolean() ? 1 : -1) * ((1L << 31) - random.nextInt(3));
      case MIXED_LIMITS -> switch (random.nextInt(6)) {
        case 0 -> Long.MAX_VALUE / (1 + random.nextInt(200));
        case 1 -> Long.MIN_VALUE / (1 + random.nextInt(200));
        case 2 -> random.nextLong();
        default -> random.nextInt(200) - 100;
      };
    };
  }
}
