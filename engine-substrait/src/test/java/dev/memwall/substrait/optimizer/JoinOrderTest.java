package dev.memwall.substrait.optimizer;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.core.expr.Expr.or;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.logical.Explain;
import dev.memwall.substrait.logical.LogicalRel;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The comma-join rewrite on logical plans: what is pushed down, what joins what, which side builds. */
@ExtendWith(LeakCheck.class)
class JoinOrderTest {
  /** Statistics collected from each scan's table. */
  private static final CardinalityEstimator ESTIMATOR =
      new CardinalityEstimator(scan -> TableStatistics.collected(scan.source()));

  private static Table table(EngineMemory memory, String key, int rows) {
    try (TableBuilder builder = new TableBuilder(List.of(key, key + "_v"), List.of(ColumnType.INT64, ColumnType.INT64),
        memory.arrow())) {
      for (int i = 0; i < rows; i++) {
        builder.appendLong(i).appendLong(i % 7).endRow();
      }
      return builder.build();
    }
  }

  private static LogicalRel scan(String name, Table table) {
    List<String> columns = table.schema().getFields().stream().map(f -> f.getName()).toList();
    return new LogicalRel.Scan(name, table, columns, columns);
  }

  @Test
  void aFilterOverCrossProductsBecomesEquiJoinsSmallestFirstWithSingleTableConditionsPushedDown(EngineMemory memory) {
    try (Table big = table(memory, "b", 1000); Table mid = table(memory, "m", 100); Table small = table(memory, "s", 10)) {
      LogicalRel cross = new LogicalRel.Cross(new LogicalRel.Cross(scan("big", big), scan("mid", mid)), scan("small", small));
      Expr condition = and(col("b_v").eq(col("m")), col("m_v").eq(col("s")), col("s_v").gt(lit(2)),
          col("b").add(col("s")).gt(lit(5)), lit(1).eq(lit(1)));
      String plan = Explain.of(JoinOrder.optimize(new LogicalRel.Filter(cross, condition), (a, b) -> true, ESTIMATOR));
      assertEquals("""
          filter Comparison[op=EQ, left=Literal[value=1, type=INT64], right=Literal[value=1, type=INT64]]
            filter Comparison[op=GT, left=Arithmetic[op=ADD, left=ColumnRef[name=b], right=ColumnRef[name=s]], \
          right=Literal[value=5, type=INT64]]
              inner join on [b_v] = [m]
                scan big [b, b_v]
                inner join on [m_v] = [s]
                  scan mid [m, m_v]
                  filter Comparison[op=GT, left=ColumnRef[name=s_v], right=Literal[value=2, type=INT64]]
                    scan small [s, s_v]
          """, plan);
    }
  }

  /** The plan of {@code cross} filtered by {@code b = s}, {@code b > 4} and {@code branches}. */
  private static String keyedAndFiltered(LogicalRel cross, Expr branches) {
    return Explain.of(JoinOrder.optimize(new LogicalRel.Filter(cross, and(col("b").eq(col("s")), col("b").gt(lit(4)),
        branches)), (a, b) -> true, ESTIMATOR));
  }

  @Test
  void whatAnOrImpliesOnAnInputRunsAfterItsOwnConditionsWhereItDropsMostRows(EngineMemory memory) {
    try (Table big = table(memory, "b", 1000); Table small = table(memory, "s", 10)) {
      LogicalRel cross = new LogicalRel.Cross(scan("big", big), scan("small", small));
      Expr narrow = or(and(col("b_v").ge(lit(1)), col("b_v").le(lit(2)), col("s_v").eq(lit(1))),
          and(col("b_v").ge(lit(2)), col("b_v").le(lit(3)), col("s_v").eq(lit(2))));
      String plan = keyedAndFiltered(cross, narrow);
      assertEquals("""
          filter %s
            inner join on [b] = [s]
              filter And[operands=[Comparison[op=GE, left=ColumnRef[name=b_v], right=Literal[value=1, type=INT64]], \
          Comparison[op=LE, left=ColumnRef[name=b_v], right=Literal[value=3, type=INT64]]]]
                filter Comparison[op=GT, left=ColumnRef[name=b], right=Literal[value=4, type=INT64]]
                  scan big [b, b_v]
              filter Or[operands=[Comparison[op=EQ, left=ColumnRef[name=s_v], right=Literal[value=1, type=INT64]], \
          Comparison[op=EQ, left=ColumnRef[name=s_v], right=Literal[value=2, type=INT64]]]]
                scan small [s, s_v]
          """.formatted(narrow), plan);
    }
  }

  @Test
  void anImpliedFilterThatKeepsMostRowsOrThatAnOperandIsSilentAboutIsNotApplied(EngineMemory memory) {
    try (Table big = table(memory, "b", 1000); Table small = table(memory, "s", 10)) {
      LogicalRel cross = new LogicalRel.Cross(scan("big", big), scan("small", small));
      Expr wide = or(and(col("b_v").ge(lit(0)), col("b_v").le(lit(4)), col("s_v").eq(lit(1))),
          and(col("b_v").ge(lit(3)), col("b_v").le(lit(6)), col("s_v").eq(lit(2))));
      Expr silent = or(and(col("b_v").ge(lit(1)), col("s_v").eq(lit(1))), col("s_v").eq(lit(2)));
      for (Expr branches : List.of(wide, silent)) {
        String plan = keyedAndFiltered(cross, branches);
        assertTrue(plan.contains("\n  inner join on [b] = [s]\n    filter Comparison[op=GT, left=ColumnRef[name=b], "
            + "right=Literal[value=4, type=INT64]]\n      scan big [b, b_v]\n"), plan);
      }
    }
  }

  @Test
  void tablesNoConditionLinksAreCrossedSmallestFirst(EngineMemory memory) {
    try (Table big = table(memory, "b", 1000); Table mid = table(memory, "m", 100); Table small = table(memory, "s", 10)) {
      LogicalRel cross = new LogicalRel.Cross(new LogicalRel.Cross(scan("big", big), scan("mid", mid)), scan("small", small));
      String plan = Explain.of(JoinOrder.optimize(new LogicalRel.Filter(cross, col("b").eq(col("m"))), (a, b) -> true, ESTIMATOR));
      assertEquals("""
          cross
            inner join on [b] = [m]
              scan big [b, b_v]
              scan mid [m, m_v]
            scan small [s, s_v]
          """, plan, "big and mid join first (est. 1,000), then small is crossed in");
    }
  }

  @Test
  void anEqualityOfColumnsNoJoinTakesAsKeysIsAConditionAfterACross(EngineMemory memory) {
    try (Table big = table(memory, "b", 1000); Table small = table(memory, "s", 10)) {
      LogicalRel cross = new LogicalRel.Cross(scan("big", big), scan("small", small));
      String plan = Explain.of(JoinOrder.optimize(new LogicalRel.Filter(cross, col("b").eq(col("s"))), (a, b) -> false, ESTIMATOR));
      assertEquals("""
          filter Comparison[op=EQ, left=ColumnRef[name=b], right=ColumnRef[name=s]]
            cross
              scan big [b, b_v]
              scan small [s, s_v]
          """, plan);
    }
  }

  /** {@code name(name_k key, name_n = k % 25, name_f = k % parents)} with {@code rows} rows. */
  private static Table linked(EngineMemory memory, String name, int rows, int parents) {
    try (TableBuilder builder = new TableBuilder(List.of(name + "_k", name + "_n", name + "_f"),
        List.of(ColumnType.INT64, ColumnType.INT64, ColumnType.INT64), memory.arrow())) {
      for (int i = 0; i < rows; i++) {
        builder.appendLong(i).appendLong(i % 25).appendLong(i % parents).endRow();
      }
      return builder.build();
    }
  }

  @Test
  void aManyToManyJoinOfSmallInputsComesAfterTheSelectiveKeyJoins(EngineMemory memory) {
    // TPC-H Q5's trap: customer and supplier share only a nation (25 values). By row counts alone
    // c (1,500) and s (100) are the smallest linked pair and joined first (6,000 rows); with
    // distinct counts the filtered orders (about 150) meet their customers first (a key join).
    try (Table c = linked(memory, "c", 1500, 25); Table s = linked(memory, "s", 100, 25);
        Table o = linked(memory, "o", 15_000, 1500)) {
      LogicalRel cross = new LogicalRel.Cross(new LogicalRel.Cross(scan("c", c), scan("s", s)), scan("o", o));
      Expr condition = and(col("c_n").eq(col("s_n")), col("o_f").eq(col("c_k")), col("o_k").lt(lit(150)));
      String plan = Explain.of(JoinOrder.optimize(new LogicalRel.Filter(cross, condition), (a, b) -> true, ESTIMATOR));
      assertEquals("""
          inner join on [c_n] = [s_n]
            inner join on [c_k] = [o_f]
              scan c [c_k, c_n, c_f]
              filter Comparison[op=LT, left=ColumnRef[name=o_k], right=Literal[value=150, type=INT64]]
                scan o [o_k, o_n, o_f]
            scan s [s_k, s_n, s_f]
          """, plan, "the orders' 150 customers (est. 150 rows, more than s's 100) meet their suppliers last");
      String byRows = Explain.of(JoinOrder.optimize(new LogicalRel.Filter(cross, condition), (a, b) -> true,
          new CardinalityEstimator(scan -> TableStatistics.supplied(scan.source().rowCount(), java.util.Map.of()))));
      assertTrue(byRows.contains("  inner join on [c_n] = [s_n]\n    scan c [c_k, c_n, c_f]\n    scan s"),
          "without distinct counts the many-to-many join comes first:\n" + byRows);
    }
  }

  @Test
  void whatEveryOperandOfAnOrRepeatsIsFactoredOut() {
    Expr key = col("a").eq(col("b"));
    Expr first = col("x").gt(lit(1));
    Expr second = col("y").lt(lit(2));
    assertEquals(List.of(key, or(first, second)), JoinOrder.factorOr(or(and(key, first), and(second, key))));
    assertEquals(List.of(key), JoinOrder.factorOr(or(key, and(key, first))), "an operand that is only the common part");
    Expr unrelated = or(first, second);
    assertEquals(List.of(unrelated), JoinOrder.factorOr(unrelated));
  }
}
