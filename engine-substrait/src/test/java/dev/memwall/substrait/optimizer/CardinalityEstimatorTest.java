package dev.memwall.substrait.optimizer;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.or;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.logical.LogicalRel;
import java.time.LocalDate;
import java.util.List;
import java.util.Random;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Estimates against exact counts on generated tables: every estimate here is within a factor of
 * 1.5 of the true count (the data is uniform where the estimator assumes so, skewed where it says
 * which way it errs).
 */
@ExtendWith(LeakCheck.class)
class CardinalityEstimatorTest {
  private static final double FACTOR = 1.5;
  private static final int ROWS = 20_000;
  private static final long FIRST_DAY = LocalDate.parse("1992-01-01").toEpochDay();
  private static final CardinalityEstimator ESTIMATOR =
      new CardinalityEstimator(scan -> TableStatistics.collected(scan.source()));

  /**
   * {@code f(k INT64 key, g INT64 = k % 100, day DATE uniform over 7 years, price DECIMAL(2) in
   * [0, 1000), fk INT64 = random in [0, keys))} with {@code rows} rows; a tenth of the prices null.
   */
  private static Table table(EngineMemory memory, String prefix, int rows, int keys) {
    Random random = new Random(rows);
    try (TableBuilder builder = new TableBuilder(List.of(prefix + "k", prefix + "g", prefix + "day", prefix + "price",
        prefix + "fk"), List.of(ColumnType.INT64, ColumnType.INT64, ColumnType.DATE, ColumnType.decimal(2),
            ColumnType.INT64), memory.arrow())) {
      for (int i = 0; i < rows; i++) {
        builder.appendLong(i).appendLong(i % 100).appendLong(FIRST_DAY + random.nextInt(7 * 365));
        if (i % 10 == 0) {
          builder.appendNull();
        } else {
          builder.appendLong(random.nextInt(100_000));
        }
        builder.appendLong(random.nextInt(keys)).endRow();
      }
      return builder.build();
    }
  }

  private static LogicalRel scan(String name, Table table) {
    List<String> columns = table.schema().getFields().stream().map(f -> f.getName()).toList();
    return new LogicalRel.Scan(name, table, columns, columns);
  }

  private static long count(Table table, IntPredicate row) {
    long n = 0;
    for (int r = 0; r < table.rowCount(); r++) {
      if (row.test(r)) {
        n++;
      }
    }
    return n;
  }

  private static void near(double estimate, long exact, String what) {
    double ratio = Math.max(estimate, 1) / Math.max(exact, 1);
    assertTrue(ratio <= FACTOR && ratio >= 1 / FACTOR, what + ": estimated " + estimate + ", exactly " + exact);
  }

  private static Object value(Table table, String column, int row) {
    int before = 0;
    for (var batch : table.batches()) {
      if (row < before + batch.rowCount()) {
        return batch.column(table.columnIndex(column)).getObject(row - before);
      }
      before += batch.rowCount();
    }
    throw new IllegalStateException("row " + row);
  }

  @Test
  void filtersFromRangesDistinctCountsAndNulls(EngineMemory memory) {
    try (Table f = table(memory, "", ROWS, 1000)) {
      LogicalRel scan = scan("f", f);
      long from = FIRST_DAY + 365;
      long to = FIRST_DAY + 2 * 365;
      Expr year = and(col("day").ge(Expr.date(LocalDate.ofEpochDay(from))), col("day").lt(Expr.date(LocalDate.ofEpochDay(to))));
      near(ESTIMATOR.of(new LogicalRel.Filter(scan, year)).rows(), count(f, r -> {
        long day = ((LocalDate) value(f, "day", r)).toEpochDay();
        return day >= from && day < to;
      }), "a year of seven");
      near(ESTIMATOR.of(new LogicalRel.Filter(scan, col("g").eq(lit(7)))).rows(),
          count(f, r -> (Long) value(f, "g", r) == 7), "an equality on 100 values");
      Expr cheap = col("price").lt(Expr.decimal("100.00"));
      near(ESTIMATOR.of(new LogicalRel.Filter(scan, cheap)).rows(), count(f, r -> {
        Object price = value(f, "price", r);
        return price != null && ((java.math.BigDecimal) price).compareTo(new java.math.BigDecimal("100.00")) < 0;
      }), "a decimal range, nulls not kept");
      near(ESTIMATOR.of(new LogicalRel.Filter(scan, or(col("g").eq(lit(1)), col("g").eq(lit(2))))).rows(),
          count(f, r -> (Long) value(f, "g", r) <= 2 && (Long) value(f, "g", r) >= 1), "an OR of equalities");
      near(ESTIMATOR.of(new LogicalRel.Filter(scan, new Expr.IsNull(col("price")))).rows(), ROWS / 10, "is null");
    }
  }

  @Test
  void joinsOnKeysAreForeignKeyJoinsAndOthersDivideByTheLargerDistinctCount(EngineMemory memory) {
    try (Table dim = table(memory, "d_", 1000, 1000); Table fact = table(memory, "f_", ROWS, 1000)) {
      LogicalRel d = scan("dim", dim);
      LogicalRel f = scan("fact", fact);
      // a foreign key meets its key: each fact row matches one dim row
      near(ESTIMATOR.of(new LogicalRel.Join(LogicalRel.JoinKind.INNER, f, d, List.of("f_fk"), List.of("d_k"))).rows(),
          ROWS, "a foreign-key join");
      // the same with a filtered dimension: the fact rows whose key it keeps
      LogicalRel some = new LogicalRel.Filter(d, col("d_k").lt(lit(100)));
      near(ESTIMATOR.of(new LogicalRel.Join(LogicalRel.JoinKind.INNER, f, some, List.of("f_fk"), List.of("d_k"))).rows(),
          count(fact, r -> (Long) value(fact, "f_fk", r) < 100), "a foreign-key join with a filtered key side");
      // many to many: 100 groups each side, uniform
      near(ESTIMATOR.of(new LogicalRel.Join(LogicalRel.JoinKind.INNER, f, d, List.of("f_g"), List.of("d_g"))).rows(),
          (long) ROWS * 1000 / 100, "a many-to-many join");
    }
  }
}
