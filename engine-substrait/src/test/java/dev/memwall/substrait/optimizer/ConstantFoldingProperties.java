package dev.memwall.substrait.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Folded literal arithmetic and casts against memwall's executor computing the unfolded expression:
 * the same value and type, or no folding where running it fails (overflow, a scale above 18, a value
 * beyond INT32). Literals span INT32 and INT64 limits and decimal scales 0 to 18.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class ConstantFoldingProperties {
  private static final List<RewriteReference.Row> ROWS = List.of(new RewriteReference.Row(1L, 5L, "a", "x"),
      new RewriteReference.Row(null, null, null, null), new RewriteReference.Row(-3L, 700L, "", "y"));

  @Property(tries = 300)
  void foldedArithmeticIsWhatRunningItComputes(@ForAll("literals") Expr.Literal left,
      @ForAll("literals") Expr.Literal right, @ForAll("exactOps") Expr.ArithmeticOp op, EngineMemory memory) {
    checkAgainstExecution(new Expr.Arithmetic(op, left, right), memory);
  }

  @Property(tries = 300)
  void foldedCastsAreWhatRunningThemComputes(@ForAll("literals") Expr.Literal input, @ForAll("exactTypes") ColumnType to,
      EngineMemory memory) {
    checkAgainstExecution(new Expr.Cast(input, to), memory);
  }

  @Example
  void aBetweenOfLiteralArithmeticKeepsTheSameRowsIncludingNulls(EngineMemory memory) {
    Expr cent = new Expr.Literal(1L, ColumnType.decimal(2));
    Expr discount = new Expr.Literal(6L, ColumnType.decimal(2));
    Expr low = new Expr.Arithmetic(Expr.ArithmeticOp.SUB, discount, cent);
    Expr high = new Expr.Arithmetic(Expr.ArithmeticOp.ADD, discount, cent);
    Expr unfolded = Expr.col("d").between(low, high);
    Expr folded = Expr.col("d").between(ConstantFolding.fold(low), ConstantFolding.fold(high));
    assertEquals(Expr.col("d").between(new Expr.Literal(5L, ColumnType.decimal(2)),
        new Expr.Literal(7L, ColumnType.decimal(2))), folded);
    List<RewriteReference.Row> rows = new ArrayList<>();
    for (long d = 0; d < 10; d++) {
      rows.add(new RewriteReference.Row(d, d, null, null));
      rows.add(new RewriteReference.Row(d, null, "s", null));
    }
    try (Table table = RewriteReference.table(memory, rows)) {
      List<List<Object>> expected = RewriteReference.filtered(memory, table, unfolded);
      assertEquals(3, expected.size());
      assertEquals(expected, RewriteReference.filtered(memory, table, folded));
    }
  }

  /** The binder aligns an integer to the decimal's scale before adding, and 9224 at scale 15 is beyond int64. */
  @Example
  void aSumWhoseAlignedOperandOverflowsIsLeftToFailAsItRuns(EngineMemory memory) {
    checkAgainstExecution(new Expr.Arithmetic(Expr.ArithmeticOp.ADD, new Expr.Literal(Long.MIN_VALUE,
        ColumnType.decimal(15)), new Expr.Literal(9224L, ColumnType.INT32)), memory);
    Expr overflowing = new Expr.Arithmetic(Expr.ArithmeticOp.SUB, new Expr.Literal(1L, ColumnType.decimal(15)),
        new Expr.Literal(9224L, ColumnType.INT32));
    assertSame(overflowing, ConstantFolding.fold(overflowing));
  }

  @Example
  void expressionsReadingColumnsDivisionAndDatesAreLeftAlone() {
    Expr.Literal one = Expr.lit(1);
    List<Expr> kept = List.of(new Expr.Arithmetic(Expr.ArithmeticOp.ADD, Expr.col("n"), one),
        new Expr.Arithmetic(Expr.ArithmeticOp.DIV, one, one),
        new Expr.Arithmetic(Expr.ArithmeticOp.ADD, Expr.date("1994-01-01"), one),
        new Expr.Arithmetic(Expr.ArithmeticOp.MUL, Expr.lit(2.5), one),
        new Expr.Cast(Expr.lit(1.5), ColumnType.INT64), new Expr.Cast(one, ColumnType.FLOAT64), one);
    for (Expr expr : kept) {
      assertSame(expr, ConstantFolding.fold(expr), expr.toString());
    }
  }

  private static void checkAgainstExecution(Expr unfolded, EngineMemory memory) {
    Expr folded = ConstantFolding.fold(unfolded);
    try (Table table = RewriteReference.table(memory, ROWS)) {
      List<List<Object>> expected;
      try {
        expected = RewriteReference.computed(memory, table, unfolded);
      } catch (ArithmeticException | IllegalArgumentException e) {
        assertSame(unfolded, folded, "folded what fails to run: " + e.getMessage());
        return;
      }
      assertInstanceOf(Expr.Literal.class, folded, unfolded + " runs, so it folds");
      assertEquals(expected, RewriteReference.computed(memory, table, folded), unfolded.toString());
    }
  }

  @Provide
  Arbitrary<Expr.Literal> literals() {
    Arbitrary<Long> int32 = Arbitraries.oneOf(Arbitraries.longs().between(Integer.MIN_VALUE, Integer.MAX_VALUE),
        Arbitraries.of(0L, 1L, -1L, (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE));
    Arbitrary<Long> int64 = Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.longs().between(-1000, 1000),
        Arbitraries.of(0L, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE / 10, 999_999_999_999_999_999L));
    Arbitrary<Expr.Literal> ints = int32.map(v -> new Expr.Literal(v, ColumnType.INT32));
    Arbitrary<Expr.Literal> longs = int64.map(v -> new Expr.Literal(v, ColumnType.INT64));
    Arbitrary<Expr.Literal> decimals = Combinators.combine(int64, Arbitraries.oneOf(Arbitraries.integers().between(0, 4),
        Arbitraries.integers().between(0, 18))).as((v, scale) -> new Expr.Literal(v, ColumnType.decimal(scale)));
    return Arbitraries.oneOf(ints, longs, decimals);
  }

  /** The operations folded; division computes in double and is left to run (see the example above). */
  @Provide
  Arbitrary<Expr.ArithmeticOp> exactOps() {
    return Arbitraries.of(Expr.ArithmeticOp.ADD, Expr.ArithmeticOp.SUB, Expr.ArithmeticOp.MUL);
  }

  @Provide
  Arbitrary<ColumnType> exactTypes() {
    return Arbitraries.oneOf(Arbitraries.of(ColumnType.INT32, ColumnType.INT64),
        Arbitraries.integers().between(0, 18).map(ColumnType::decimal));
  }
}
