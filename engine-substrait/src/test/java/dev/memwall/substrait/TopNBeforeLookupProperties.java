package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.optimizer.ForeignKey;
import dev.memwall.substrait.optimizer.TopNBeforeLookup;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link TopNBeforeLookup} against the plans it rewrites, both run: {@code orders(ok, ock, od)} with
 * key {@code ok} and foreign key {@code ock} to {@code cust(ck, cnk, cname)} with key {@code ck},
 * whose {@code cnk} references {@code nat(nk, nname)}. The drawn data keep the declared foreign keys
 * (the rewrite relies on them unchecked), with skewed references, tied and null sort values and
 * empty tables; the left outer join needs no foreign key and gets dangling and null references.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class TopNBeforeLookupProperties {
  private static final Map<String, List<List<String>>> KEYS = Map.of(
      "orders", List.of(List.of("ok")), "cust", List.of(List.of("ck")), "nat", List.of(List.of("nk")));
  private static final Function<LogicalRel.Scan, List<List<String>>> DECLARED =
      scan -> KEYS.getOrDefault(scan.table(), List.of());
  private static final Map<String, List<ForeignKey>> FOREIGN = Map.of(
      "orders", List.of(new ForeignKey(List.of("ock"), "cust", List.of("ck"))),
      "cust", List.of(new ForeignKey(List.of("cnk"), "nat", List.of("nk"))));
  private static final Function<LogicalRel.Scan, List<ForeignKey>> FOREIGN_DECLARED =
      scan -> FOREIGN.getOrDefault(scan.table(), List.of());

  @Property(tries = 100)
  void theTopRowsOfALookupJoinAreTheLookupsOfTheTopRows(
      @ForAll @Size(max = 30) List<@IntRange(min = 0, max = 40) Integer> orders,
      @ForAll @UniqueElements @Size(min = 1, max = 10) List<@LongRange(min = -3, max = 20) Long> customers,
      @ForAll @UniqueElements @Size(min = 1, max = 4) List<@LongRange(min = 0, max = 6) Long> nations,
      @ForAll @IntRange(max = 12) int rows, @ForAll boolean aggregateFirst, @ForAll boolean lookupOnTheLeft,
      @ForAll boolean descending, @ForAll boolean nullsFirst, @ForAll boolean breakTies, EngineMemory memory) {
    try (NamedTables t = tables(memory, orders, customers, nations, false)) {
      LogicalRel input = aggregateFirst
          ? new LogicalRel.Aggregation(t.scan("orders"), List.of(col("ock").as("ock")),
              List.of(Aggregate.sum(col("od"), "od"), Aggregate.max(col("ok"), "ok")))
          : t.scan("orders");
      LogicalRel lookup = new LogicalRel.Join(JoinKind.INNER, t.scan("cust"), t.scan("nat"), List.of("cnk"), List.of("nk"));
      LogicalRel join = lookupOnTheLeft
          ? new LogicalRel.Join(JoinKind.INNER, lookup, input, List.of("ck"), List.of("ock"))
          : new LogicalRel.Join(JoinKind.INNER, input, lookup, List.of("ock"), List.of("ck"));
      List<SortKey> keys = new ArrayList<>(List.of(new SortKey("sod", descending, nullsFirst)));
      if (breakTies) {
        keys.add(SortKey.asc("ok"));
      }
      LogicalRel plan = new LogicalRel.Limit(new LogicalRel.Sort(new LogicalRel.Project(join, List.of(
          col("od").as("sod"), col("ok").as("ok"), col("cname").as("cname"), col("nname").as("nname"),
          col("nk").add(Expr.lit(1L)).as("nk1"))), keys), rows);
      LogicalRel rewritten = TopNBeforeLookup.rewrite(plan, DECLARED, FOREIGN_DECLARED);
      assertNotEquals(plan, rewritten);
      assertSameTop(memory, plan, rewritten, breakTies);
    }
  }

  @Property(tries = 100)
  void aLeftOuterJoinToAKeyNeedsNoForeignKey(
      @ForAll @Size(max = 30) List<@IntRange(min = 0, max = 40) Integer> orders,
      @ForAll @UniqueElements @Size(max = 10) List<@LongRange(min = -3, max = 20) Long> customers,
      @ForAll @IntRange(max = 12) int rows, @ForAll boolean descending, @ForAll boolean breakTies,
      EngineMemory memory) {
    try (NamedTables t = tables(memory, orders, customers, List.of(0L), true)) {
      LogicalRel join = new LogicalRel.Join(JoinKind.LEFT_OUTER, t.scan("orders"), t.scan("cust"), List.of("ock"), List.of("ck"));
      List<SortKey> keys = new ArrayList<>(List.of(new SortKey("od", descending)));
      if (breakTies) {
        keys.add(SortKey.desc("ok"));
      }
      LogicalRel plan = new LogicalRel.Limit(new LogicalRel.Sort(join, keys), rows);
      LogicalRel rewritten = TopNBeforeLookup.rewrite(plan, DECLARED, scan -> List.of());
      assertNotEquals(plan, rewritten);
      assertSameTop(memory, plan, rewritten, breakTies);
    }
  }

  @Example
  void aJoinThatMayDropOrRepeatRowsOrOrdersByTheLookupIsLeftAlone(EngineMemory memory) {
    try (NamedTables t = tables(memory, List.of(1, 2), List.of(1L, 2L), List.of(0L), false)) {
      LogicalRel lookup = new LogicalRel.Join(JoinKind.INNER, t.scan("cust"), t.scan("nat"), List.of("cnk"), List.of("nk"));
      LogicalRel join = new LogicalRel.Join(JoinKind.INNER, t.scan("orders"), lookup, List.of("ock"), List.of("ck"));
      LogicalRel filteredLookup = new LogicalRel.Join(JoinKind.INNER, t.scan("orders"),
          new LogicalRel.Filter(t.scan("cust"), col("cname").eq(Expr.lit("c0"))), List.of("ock"), List.of("ck"));
      LogicalRel byOrderKey = new LogicalRel.Join(JoinKind.INNER, t.scan("cust"), t.scan("orders"), List.of("ck"), List.of("ok"));
      LogicalRel outerFromTheLookup = new LogicalRel.Join(JoinKind.LEFT_OUTER, t.scan("cust"), t.scan("orders"), List.of("ck"),
          List.of("ock"));
      List<LogicalRel> kept = List.of(
          top(filteredLookup, "od"), // the filter on the lookup may drop orders
          top(byOrderKey, "od"), // ock is the foreign key, not ok
          top(join, "cname"), // the order comes from the lookup
          top(new LogicalRel.Filter(join, col("nname").eq(Expr.lit("n0"))), "od"),
          top(outerFromTheLookup, "cname"), // orders is not unique on ock: a customer's row repeats
          new LogicalRel.Limit(join, 1), // no sort
          new LogicalRel.Sort(join, List.of(SortKey.asc("od"))));
      for (LogicalRel plan : kept) {
        assertEquals(plan, TopNBeforeLookup.rewrite(plan, DECLARED, FOREIGN_DECLARED), plan.toString());
      }
      assertEquals(top(join, "od"), TopNBeforeLookup.rewrite(top(join, "od"), DECLARED, scan -> List.of()),
          "without the declared foreign key an inner join may drop orders");
      assertEquals(top(join, "od"), TopNBeforeLookup.rewrite(top(join, "od"), scan -> List.of(), FOREIGN_DECLARED),
          "without the declared key a customer may repeat");
      LogicalRel pushed = TopNBeforeLookup.rewrite(top(join, "od"), DECLARED, FOREIGN_DECLARED);
      LogicalRel.Join outer = assertInstanceOf(LogicalRel.Join.class, ((LogicalRel.Sort) ((LogicalRel.Limit) pushed)
          .input()).input());
      LogicalRel.Join inner = assertInstanceOf(LogicalRel.Join.class, outer.left(), "customer meets the top rows first");
      assertInstanceOf(LogicalRel.Limit.class, inner.right(), "the top rows are the build side");
    }
  }

  private static LogicalRel top(LogicalRel input, String column) {
    return new LogicalRel.Limit(new LogicalRel.Sort(input, List.of(SortKey.desc(column))), 1);
  }

  /**
   * The two plans' rows in their order: the same where the sort keys break every tie, else the same
   * sort values in the same order (which rows among tied ones is free).
   */
  private static void assertSameTop(EngineMemory memory, LogicalRel plan, LogicalRel rewritten, boolean breakTies) {
    List<List<Object>> expected = rows(memory, plan, plan.columns());
    List<List<Object>> actual = rows(memory, rewritten, plan.columns());
    if (breakTies) {
      assertEquals(expected, actual);
    } else {
      String sorted = ((LogicalRel.Sort) ((LogicalRel.Limit) plan).input()).keys().getFirst().column();
      int at = plan.columns().indexOf(sorted);
      assertEquals(expected.stream().map(row -> row.get(at)).toList(), actual.stream().map(row -> row.get(at)).toList());
    }
  }

  /** The rows of {@code plan} in its order, as {@code columns}. */
  private static List<List<Object>> rows(EngineMemory memory, LogicalRel plan, List<String> columns) {
    try (Table result = new RelationLowering(new ExecutionContext(memory, 2))
        .lower(new LogicalRel.Project(plan, columns.stream().map(c -> col(c).as(c)).toList()),
            new LinkedHashSet<>(columns)).toTable()) {
      return TableRows.of(result);
    }
  }

  /** The three tables; orders reference customers by position, customers nations, unless {@code dangling}. */
  private static NamedTables tables(EngineMemory memory, List<Integer> orders, List<Long> customers, List<Long> nations,
      boolean dangling) {
    List<Object[]> orderRows = new ArrayList<>();
    for (int i = 0; i < orders.size(); i++) {
      int draw = orders.get(i);
      Long reference = customers.isEmpty() || dangling && draw % 7 == 6 ? (draw % 2 == 0 ? null : 99L)
          : customers.get(draw % customers.size()); // skewed: the low draws repeat
      orderRows.add(new Object[] {(long) i, reference, draw % 5 == 4 ? null : (long) (draw % 6) - 2});
    }
    List<Object[]> custRows = new ArrayList<>();
    for (int i = 0; i < customers.size(); i++) {
      custRows.add(new Object[] {customers.get(i), nations.get(i % nations.size()), i % 4 == 3 ? null : "c" + (i % 2)});
    }
    List<Object[]> natRows = new ArrayList<>();
    for (int i = 0; i < nations.size(); i++) {
      natRows.add(new Object[] {nations.get(i), i == 1 ? null : "n" + (i % 2)});
    }
    Table orderTable = Fixture.build(List.of("ok", "ock", "od"),
        List.of(ColumnType.INT64, ColumnType.INT64, ColumnType.INT64), orderRows, memory);
    Table custTable = Fixture.build(List.of("ck", "cnk", "cname"),
        List.of(ColumnType.INT64, ColumnType.INT64, ColumnType.STRING), custRows, memory);
    Table natTable = Fixture.build(List.of("nk", "nname"), List.of(ColumnType.INT64, ColumnType.STRING), natRows,
        memory);
    return new NamedTables().add("orders", orderTable).add("cust", custTable).add("nat", natTable);
  }
}
