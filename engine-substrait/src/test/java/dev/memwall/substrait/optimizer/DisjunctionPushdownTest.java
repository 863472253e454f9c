package dev.memwall.substrait.optimizer;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The single-input filters an OR over two inputs implies. The reference check reads each row of the
 * table as a pair of rows, one of input 0 ({@code n}, {@code s}) and one of input 1 ({@code d},
 * {@code t}), as a join would bring them together: adding the implied filters to the OR must keep
 * the same pairs, nulls included.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class DisjunctionPushdownTest {
  private static final Map<String, Integer> OWNER = Map.of("n", 0, "s", 0, "d", 1, "t", 1);

  @Example
  void swappedNationPairsImplyAnInListOnEachNation() {
    Expr or = Expr.or(Expr.and(col("s").eq(lit("FRANCE")), col("t").eq(lit("GERMANY"))),
        Expr.and(col("s").eq(lit("GERMANY")), col("t").eq(lit("FRANCE"))));
    assertEquals(Map.of(0, new Expr.InList(col("s"), List.of(lit("FRANCE"), lit("GERMANY"))),
        1, new Expr.InList(col("t"), List.of(lit("GERMANY"), lit("FRANCE")))), DisjunctionPushdown.implied(or, OWNER));
  }

  @Example
  void eachOperandsConjunctsOnOneInputFormThatInputsBranch() {
    Expr decimal = new Expr.Literal(100L, ColumnType.decimal(2));
    Expr or = Expr.or(Expr.and(col("s").eq(lit("Brand#12")), col("n").le(lit(5)), col("d").ge(decimal)),
        Expr.and(col("s").eq(lit("Brand#23")), col("d").le(decimal), col("n").lt(col("d"))));
    assertEquals(Map.of(0, Expr.or(Expr.and(col("s").eq(lit("Brand#12")), col("n").le(lit(5))),
        col("s").eq(lit("Brand#23"))), 1, Expr.or(col("d").ge(decimal), col("d").le(decimal))),
        DisjunctionPushdown.implied(or, OWNER));
  }

  @Example
  void anInputSomeOperandSaysNothingAboutGetsNoFilter() {
    Expr or = Expr.or(Expr.and(col("s").eq(lit("a")), col("t").eq(lit("b"))), col("n").lt(col("d")), col("t").eq(lit("c")));
    assertEquals(Map.of(), DisjunctionPushdown.implied(or, OWNER));
    Expr partly = Expr.or(Expr.and(col("s").eq(lit("a")), col("t").eq(lit("b"))), col("t").eq(lit("c")));
    assertEquals(Map.of(1, new Expr.InList(col("t"), List.of(lit("b"), lit("c")))),
        DisjunctionPushdown.implied(partly, OWNER));
  }

  @Example
  void anythingButAnOrOverSeveralInputsImpliesNothing() {
    assertTrue(DisjunctionPushdown.implied(Expr.and(col("s").eq(lit("a")), col("t").eq(lit("b"))), OWNER).isEmpty());
    assertTrue(DisjunctionPushdown.implied(Expr.or(col("s").eq(lit("a")), col("n").gt(lit(1))), OWNER).isEmpty());
    assertTrue(DisjunctionPushdown.implied(Expr.or(col("s").eq(lit("a")), col("unknown").gt(lit(1))), OWNER)
        .isEmpty());
  }

  @Property(tries = 150)
  void theImpliedFiltersKeepEveryPairTheOrKeepsIncludingNulls(
      @ForAll("rows") @Size(max = 50) List<RewriteReference.Row> rows,
      @ForAll("operands") @Size(min = 2, max = 4) List<List<Expr>> operands, EngineMemory memory) {
    Expr or = new Expr.Or(operands.stream().map(conjuncts -> conjuncts.size() == 1 ? conjuncts.getFirst()
        : (Expr) new Expr.And(conjuncts)).toList());
    List<Expr> all = new ArrayList<>(List.of(or));
    all.addAll(DisjunctionPushdown.implied(or, OWNER).values());
    try (Table table = RewriteReference.table(memory, rows)) {
      assertEquals(RewriteReference.filtered(memory, table, or),
          RewriteReference.filtered(memory, table, new Expr.And(all)));
    }
  }

  @Provide
  Arbitrary<List<RewriteReference.Row>> rows() {
    Arbitrary<String> text = Arbitraries.of("a", "b", "").injectNull(0.3);
    Arbitrary<Long> n = Arbitraries.oneOf(Arbitraries.longs().between(-2, 2),
        Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE)).injectNull(0.3);
    Arbitrary<Long> d = Arbitraries.longs().between(-300, 300).injectNull(0.3);
    return Combinators.combine(n, d, text, text).as(RewriteReference.Row::new).list();
  }

  @Provide
  Arbitrary<List<List<Expr>>> operands() {
    Arbitrary<Expr> first = Arbitraries.oneOf(Arbitraries.longs().between(-2, 2).map(v -> col("n").gt(lit(v))),
        Arbitraries.of("a", "b", "").map(v -> col("s").eq(lit(v))), Arbitraries.just(Expr.isNull(col("s"))));
    Arbitrary<Expr> second = Arbitraries.oneOf(
        Arbitraries.longs().between(-300, 300).map(v -> col("d").le(new Expr.Literal(v, ColumnType.decimal(2)))),
        Arbitraries.of("a", "b").map(v -> col("t").eq(lit(v))), Arbitraries.just(Expr.not(Expr.isNull(col("t")))));
    Arbitrary<Expr> both = Arbitraries.just(col("n").lt(col("d")));
    Arbitrary<Expr> any = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, first), net.jqwik.api.Tuple.of(3, second),
        net.jqwik.api.Tuple.of(1, both));
    return any.list().ofMinSize(1).ofMaxSize(3).list();
  }
}
