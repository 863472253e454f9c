package dev.memwall.core.expr;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.expr.Expr.ComparisonOp;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Random predicate trees (comparisons of nullable columns with constants and with each other,
 * AND, OR, NOT, IN, BETWEEN) against a reference evaluator of SQL's three-valued logic, where a
 * {@code Boolean} null is UNKNOWN and WHERE keeps only TRUE.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class ThreeValuedLogicProperties {
  private static final String[] COLUMNS = {"x", "y"};

  /** A predicate and its reference evaluation. */
  private record Predicate(Expr expr, java.util.function.Function<Long[], Boolean> eval) {}

  @Property(tries = 300)
  void whereKeepsExactlyTheTrueRows(@ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    List<Long[]> rows = new ArrayList<>();
    int n = random.nextInt(3000);
    for (int i = 0; i < n; i++) {
      rows.add(new Long[] {value(random), value(random)});
    }
    Predicate predicate = predicate(random, 3);
    List<String> expected = new ArrayList<>();
    for (Long[] row : rows) {
      if (Boolean.TRUE.equals(predicate.eval().apply(row))) {
        expected.add(java.util.Arrays.toString(row));
      }
    }
    try (TableBuilder builder = new TableBuilder(List.of("x", "y"), List.of(ColumnType.INT64, ColumnType.INT64),
        memory.arrow())) {
      for (Long[] row : rows) {
        for (Long v : row) {
          if (v == null) {
            builder.appendNull();
          } else {
            builder.appendLong(v);
          }
        }
        builder.endRow();
      }
      try (Table table = builder.build();
          Table result = Plan.scan(table).filter(predicate.expr()).execute(ExecutionContext.singleThreaded(memory))) {
        List<String> actual = new ArrayList<>();
        for (Batch batch : result.batches()) {
          for (int r = 0; r < batch.rowCount(); r++) {
            actual.add(java.util.Arrays.toString(new Object[] {batch.column(0).getObject(r), batch.column(1).getObject(r)}));
          }
        }
        assertEquals(expected, actual, () -> "predicate " + predicate.expr());
      }
    }
  }

  private static Long value(Random random) {
    return random.nextInt(4) == 0 ? null : (long) random.nextInt(7) - 3;
  }

  private static Predicate predicate(Random random, int depth) {
    int choice = random.nextInt(depth == 0 ? 3 : 7);
    switch (choice) {
      case 0, 1 -> {
        int column = random.nextInt(2);
        long constant = random.nextInt(7) - 3;
        ComparisonOp op = ComparisonOp.values()[random.nextInt(ComparisonOp.values().length)];
        return new Predicate(new Expr.Comparison(op, col(COLUMNS[column]), lit(constant)),
            row -> row[column] == null ? null : FilterKernels.accepts(op, Long.compare(row[column], constant)));
      }
      case 2 -> {
        ComparisonOp op = ComparisonOp.values()[random.nextInt(ComparisonOp.values().length)];
        return new Predicate(new Expr.Comparison(op, col("x"), col("y")),
            row -> row[0] == null || row[1] == null ? null : FilterKernels.accepts(op, Long.compare(row[0], row[1])));
      }
      case 3 -> {
        Predicate inner = predicate(random, depth - 1);
        return new Predicate(Expr.not(inner.expr()), row -> {
          Boolean v = inner.eval().apply(row);
          return v == null ? null : !v;
        });
      }
      case 4 -> {
        Predicate a = predicate(random, depth - 1);
        Predicate b = predicate(random, depth - 1);
        return new Predicate(Expr.and(a.expr(), b.expr()), row -> and(a.eval().apply(row), b.eval().apply(row)));
      }
      case 5 -> {
        Predicate a = predicate(random, depth - 1);
        Predicate b = predicate(random, depth - 1);
        return new Predicate(Expr.or(a.expr(), b.expr()), row -> or(a.eval().apply(row), b.eval().apply(row)));
      }
      default -> {
        long low = random.nextInt(5) - 3;
        long high = low + random.nextInt(3);
        return new Predicate(col("y").between(lit(low), lit(high)),
            row -> row[1] == null ? null : row[1] >= low && row[1] <= high);
      }
    }
  }

  private static Boolean and(Boolean a, Boolean b) {
    if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
      return false;
    }
    return a == null || b == null ? null : true;
  }

  private static Boolean or(Boolean a, Boolean b) {
    if (Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)) {
      return true;
    }
    return a == null || b == null ? null : false;
  }
}
