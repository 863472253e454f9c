package dev.memwall.substrait.optimizer;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.Exprs;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * ORs of ranges of one column merged: the shapes, what is left alone, and the same rows as the OR
 * over columns with nulls, for random ORs of comparisons that overlap, meet, nest and are empty.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class RangeUnionsTest {
  private static Expr.Literal cents(long unscaled) {
    return new Expr.Literal(unscaled, ColumnType.decimal(2));
  }

  @Example
  void overlappingAndMeetingRangesAreOneRange() {
    Expr q = col("d");
    Expr or = Expr.or(Expr.and(q.ge(cents(100)), q.le(cents(1100))), Expr.and(q.ge(cents(1000)), q.le(cents(2000))),
        Expr.and(q.ge(cents(2000)), q.le(cents(3000))));
    assertEquals(Expr.and(q.ge(cents(100)), q.le(cents(3000))), RangeUnions.of(or));
  }

  @Example
  void disjointRangesStayApartInOrderAndPointsAreEqualities() {
    Expr n = col("n");
    Expr or = Expr.or(n.eq(lit(9)), Expr.and(n.gt(lit(0)), n.lt(lit(3))), Expr.and(lit(2).le(n), n.le(lit(4))), n.eq(lit(9)));
    assertEquals(Expr.or(Expr.and(n.gt(lit(0)), n.le(lit(4))), n.eq(lit(9))), RangeUnions.of(or));
  }

  @Example
  void oneSidedRangesMergeIntoOneSidedOnes() {
    Expr n = col("n");
    assertEquals(n.gt(lit(1)), RangeUnions.of(Expr.or(n.gt(lit(1)), Expr.and(n.ge(lit(5)), n.le(lit(7))))));
    assertEquals(n.le(lit(7)), RangeUnions.of(Expr.or(n.lt(lit(1)), Expr.and(n.ge(lit(1)), n.le(lit(7))))));
  }

  @Example
  void rangesThatDoNotMeetOrOtherShapesAreLeftAlone() {
    Expr n = col("n");
    List<Expr> kept = List.of(
        // open bounds at one value: 3 is in neither
        Expr.or(n.lt(lit(3)), n.gt(lit(3))),
        // two columns, a string, a NE, a column against a column, mixed literal types, every value
        Expr.or(n.lt(lit(3)), col("d").lt(cents(300))),
        Expr.or(col("s").eq(lit("a")), col("s").eq(lit("b"))),
        Expr.or(n.ne(lit(1)), n.ne(lit(2))),
        Expr.or(n.lt(col("d")), n.lt(lit(4))),
        Expr.or(n.le(lit(3)), n.ge(new Expr.Literal(2L, ColumnType.INT32))),
        Expr.or(n.le(lit(3)), n.ge(lit(2))),
        // already as few ranges as can be, and not an OR
        Expr.or(n.lt(lit(1)), n.gt(lit(5))),
        Expr.and(n.ge(lit(1)), n.le(lit(2))));
    for (Expr expr : kept) {
      assertSame(expr, RangeUnions.of(expr), expr.toString());
    }
  }

  @Example
  void anEmptyOperandIsDroppedButAnOrOfOnlyEmptyOnesIsKept() {
    Expr n = col("n");
    assertEquals(n.eq(lit(1)), RangeUnions.of(Expr.or(Expr.and(n.gt(lit(3)), n.lt(lit(2))), n.eq(lit(1)))));
    Expr empty = Expr.or(Expr.and(n.gt(lit(3)), n.lt(lit(2))), Expr.and(n.gt(lit(2)), n.lt(lit(2))));
    assertSame(empty, RangeUnions.of(empty));
  }

  /** Random ORs of ranges of the decimal column keep the OR's rows, nulls included. */
  @Property(tries = 200)
  void theMergedRangesKeepTheSameRowsIncludingNulls(@ForAll("rows") @Size(max = 40) List<RewriteReference.Row> rows,
      @ForAll("operands") @Size(min = 1, max = 5) List<Expr> operands, EngineMemory memory) {
    Expr or = new Expr.Or(operands);
    try (Table table = RewriteReference.table(memory, rows)) {
      assertEquals(RewriteReference.filtered(memory, table, or),
          RewriteReference.filtered(memory, table, RangeUnions.of(or)));
    }
  }

  @Provide
  Arbitrary<List<RewriteReference.Row>> rows() {
    Arbitrary<Long> value = Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.longs().between(-2, 8)),
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE))).injectNull(0.3);
    return Combinators.combine(value, value, Arbitraries.of("a"), Arbitraries.of("b")).as(RewriteReference.Row::new)
        .list();
  }

  @Provide
  Arbitrary<List<Expr>> operands() {
    Arbitrary<Expr.Literal> bound = Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.longs().between(-2, 8)),
        Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE))).map(RangeUnionsTest::cents);
    Arbitrary<Expr.ComparisonOp> op = Arbitraries.of(Expr.ComparisonOp.EQ, Expr.ComparisonOp.LT, Expr.ComparisonOp.LE,
        Expr.ComparisonOp.GT, Expr.ComparisonOp.GE);
    Arbitrary<Expr> comparison = Combinators.combine(op, bound, Arbitraries.of(true, false))
        .as((o, v, flipped) -> flipped ? new Expr.Comparison(o, v, col("d")) : new Expr.Comparison(o, col("d"), v));
    Arbitrary<Expr> operand = comparison.list().ofMinSize(1).ofMaxSize(3).map(Exprs::and);
    Arbitrary<Expr> other = Arbitraries.longs().between(-2, 2).map(v -> (Expr) col("n").gt(lit(v)));
    return Arbitraries.frequencyOf(Tuple.of(12, operand), Tuple.of(1, other)).list();
  }
}
