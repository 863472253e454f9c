package dev.memwall.substrait.optimizer;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.Table;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** ORs of string equalities as IN lists: the shape, and the same rows as the OR over columns with nulls. */
@AddLifecycleHook(PropertyLeakCheck.class)
class InListsTest {
  @Example
  void equalitiesOfOneColumnBecomeOneInListInThePlaceOfTheFirst() {
    Expr or = Expr.or(col("s").eq(lit("a")), col("n").gt(lit(1)), lit("b").eq(col("s")), col("t").eq(lit("x")),
        col("s").eq(lit("a")));
    assertEquals(Expr.or(new Expr.InList(col("s"), List.of(lit("a"), lit("b"), lit("a"))), col("n").gt(lit(1)),
        col("t").eq(lit("x"))), InLists.of(or));
  }

  @Example
  void anOrOfOnlyEqualitiesOnOneColumnIsTheInListItself() {
    assertEquals(new Expr.InList(col("s"), List.of(lit("AIR"), lit("AIR REG"))),
        InLists.of(Expr.or(col("s").eq(lit("AIR")), col("s").eq(lit("AIR REG")))));
  }

  @Example
  void equalitiesOfOneSubstringBecomeOneInListOfIt() {
    Expr code = Expr.substring(col("s"), 1, 2);
    Expr or = Expr.or(code.eq(lit("13")), col("n").gt(lit(1)), lit("31").eq(Expr.substring(col("s"), 1, 2)));
    assertEquals(Expr.or(new Expr.InList(code, List.of(lit("13"), lit("31"))), col("n").gt(lit(1))), InLists.of(or));
  }

  @Example
  void substringsOfOtherRangesOrColumnsAreNotGroupedTogether() {
    List<Expr> kept = List.of(
        Expr.or(Expr.substring(col("s"), 1, 2).eq(lit("13")), Expr.substring(col("s"), 2, 2).eq(lit("31"))),
        Expr.or(Expr.substring(col("s"), 1, 2).eq(lit("13")), Expr.substring(col("s"), 1, 3).eq(lit("31"))),
        Expr.or(Expr.substring(col("s"), 1, 2).eq(lit("13")), Expr.substring(col("t"), 1, 2).eq(lit("31"))),
        Expr.or(Expr.substring(col("s"), 1, 2).eq(lit("13")), col("s").eq(lit("13"))),
        Expr.or(Expr.substring(Expr.substring(col("s"), 1, 3), 1, 2).eq(lit("13")),
            Expr.substring(Expr.substring(col("s"), 1, 3), 1, 2).eq(lit("31"))));
    for (Expr expr : kept) {
      assertSame(expr, InLists.of(expr), expr.toString());
    }
  }

  @Example
  void numbersSingleEqualitiesAndOtherExpressionsAreLeftAlone() {
    List<Expr> kept = List.of(Expr.or(col("n").eq(lit(1)), col("n").eq(lit(2))),
        Expr.or(col("s").eq(lit("a")), col("t").eq(lit("a"))), Expr.and(col("s").eq(lit("a")), col("s").eq(lit("b"))),
        col("s").eq(lit("a")), Expr.or(col("s").ne(lit("a")), col("s").ne(lit("b"))));
    for (Expr expr : kept) {
      assertSame(expr, InLists.of(expr), expr.toString());
    }
  }

  /** Random ORs of equalities on two string columns and their substrings (and a number test) keep the OR's rows. */
  @Property(tries = 100)
  void theInListKeepsTheSameRowsIncludingNulls(@ForAll("rows") @Size(max = 40) List<RewriteReference.Row> rows,
      @ForAll("operands") @Size(min = 2, max = 6) List<Expr> operands, EngineMemory memory) {
    Expr or = new Expr.Or(operands);
    try (Table table = RewriteReference.table(memory, rows)) {
      assertEquals(RewriteReference.filtered(memory, table, or),
          RewriteReference.filtered(memory, table, InLists.of(or)));
    }
  }

  @Provide
  Arbitrary<List<RewriteReference.Row>> rows() {
    Arbitrary<String> text = Arbitraries.of("a", "b", "", "AIR", "AIR REG", "ab", "éa", "13-4", "31").injectNull(0.3);
    Arbitrary<Long> n = Arbitraries.longs().between(-2, 2).injectNull(0.3);
    return Combinators.combine(n, n, text, text).as(RewriteReference.Row::new).list();
  }

  @Provide
  Arbitrary<List<Expr>> operands() {
    Arbitrary<Expr> compared = Combinators.combine(Arbitraries.of("s", "t"), Arbitraries.of(0, 1, 2))
        .as((column, start) -> start == 0 ? col(column) : Expr.substring(col(column), start, 2));
    Arbitrary<Expr> equality = Combinators.combine(compared, Arbitraries.of("a", "b", "", "AIR", "zz", "13", "IR", "a"),
        Arbitraries.of(true, false)).as((column, value, flipped) -> flipped ? lit(value).eq(column)
            : column.eq(lit(value)));
    Arbitrary<Expr> other = Arbitraries.longs().between(-2, 2).map(v -> (Expr) col("n").gt(lit(v)));
    return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, equality), net.jqwik.api.Tuple.of(1, other)).list();
  }
}
