package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.optimizer.AggregateBeforeLookup;
import dev.memwall.substrait.optimizer.DeterminedGroupingKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The rewrites that rely on declared keys ({@link DeterminedGroupingKeys}, {@link
 * AggregateBeforeLookup}) against the plans they rewrite, both run. Three tables in TPC-H's shape:
 * {@code lines(lk, x)}, {@code orders(ok, ock, od, oname)} with key {@code ok}, {@code cust(ck,
 * cnk, cname, cbal)} with key {@code ck}, and {@code nat(nk, nname)} with key {@code nk}; the
 * foreign keys repeat, are skewed, null and dangling, every other column is null in places, and
 * any table may be empty.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class KeyRewriteProperties {
  private static final Map<String, List<List<String>>> KEYS = Map.of(
      "orders", List.of(List.of("ok")), "cust", List.of(List.of("ck")), "nat", List.of(List.of("nk")));
  private static final Function<LogicalRel.Scan, List<List<String>>> DECLARED =
      scan -> KEYS.getOrDefault(scan.table(), List.of());
  private static final Map<String, ColumnType> TYPES = Map.of("lk", ColumnType.INT64, "ok", ColumnType.INT64,
      "ock", ColumnType.INT64, "od", ColumnType.INT64, "oname", ColumnType.STRING, "ck", ColumnType.INT64,
      "cnk", ColumnType.INT64, "cname", ColumnType.STRING, "cbal", ColumnType.INT64);

  @Property(tries = 100)
  void groupingByTheKeyAloneGivesTheSameGroups(@ForAll("foreignKeys") @Size(max = 40) List<Long> lines,
      @ForAll @UniqueElements @Size(max = 12) List<@net.jqwik.api.constraints.LongRange(min = -3, max = 9) Long> orders,
      @ForAll boolean groupByTheOrderKey, EngineMemory memory) {
    try (NamedTables t = tables(memory, lines, orders, List.of(), List.of())) {
      LogicalRel join = new LogicalRel.Join(JoinKind.INNER, t.scan("lines"), t.scan("orders"), List.of("lk"), List.of("ok"));
      String key = groupByTheOrderKey ? "ok" : "lk";
      LogicalRel plan = new LogicalRel.Aggregation(new LogicalRel.Project(join, List.of(col(key).as(key),
          col("od").as("od"), col("oname").as("oname"), col("x").as("x"))),
          List.of(col(key).as(key), col("od").as("od"), col("oname").as("oname")),
          List.of(Aggregate.sum(col("x"), "s"), Aggregate.countStar("n")));
      LogicalRel rewritten = DeterminedGroupingKeys.rewrite(plan, DECLARED, TYPES::get);
      assertNotEquals(plan, rewritten);
      assertEquals(List.of(key, "oname"), ((LogicalRel.Aggregation) ((LogicalRel.Project) rewritten).input()).keys()
          .stream().map(NamedExpr::name).toList(), "the string stays a key, od is carried");
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
    }
  }

  @Property(tries = 100)
  void aggregatingBeforeTheLookupsGivesTheSameGroups(@ForAll("foreignKeys") @Size(max = 40) List<Long> lines,
      @ForAll @UniqueElements @Size(max = 12) List<@net.jqwik.api.constraints.LongRange(min = -3, max = 9) Long> orders,
      @ForAll @UniqueElements @Size(max = 8) List<@net.jqwik.api.constraints.LongRange(min = -3, max = 9) Long> customers,
      @ForAll @UniqueElements @Size(max = 4) List<@net.jqwik.api.constraints.LongRange(min = 0, max = 4) Long> nations,
      @ForAll boolean lookupsFirst, @ForAll boolean filterOrders, EngineMemory memory) {
    try (NamedTables t = tables(memory, lines, orders, customers, nations)) {
      LogicalRel orderRows = filterOrders ? new LogicalRel.Filter(t.scan("orders"), col("od").gt(Expr.lit(1L))) : t.scan("orders");
      LogicalRel joined;
      if (lookupsFirst) { // lines x ((cust x orders) x nat), as JoinOrder builds TPC-H Q10
        LogicalRel custOrders = new LogicalRel.Join(JoinKind.INNER, t.scan("cust"), orderRows, List.of("ck"), List.of("ock"));
        LogicalRel withNation = new LogicalRel.Join(JoinKind.INNER, custOrders, t.scan("nat"), List.of("cnk"), List.of("nk"));
        joined = new LogicalRel.Join(JoinKind.INNER, t.scan("lines"), withNation, List.of("lk"), List.of("ok"));
      } else { // ((lines x orders) x cust) x nat
        LogicalRel lineOrders = new LogicalRel.Join(JoinKind.INNER, t.scan("lines"), orderRows, List.of("lk"), List.of("ok"));
        LogicalRel withCust = new LogicalRel.Join(JoinKind.INNER, lineOrders, t.scan("cust"), List.of("ock"), List.of("ck"));
        joined = new LogicalRel.Join(JoinKind.INNER, withCust, t.scan("nat"), List.of("cnk"), List.of("nk"));
      }
      LogicalRel plan = new LogicalRel.Aggregation(new LogicalRel.Project(joined, List.of(col("ck").as("ck"),
          col("cname").as("cname"), col("cbal").as("cbal"), col("nname").as("nname"),
          col("x").add(col("od")).as("v"), col("x").as("x"))),
          List.of(col("ck").as("ck"), col("cname").as("cname"), col("nname").as("nname"), col("cbal").as("cbal")),
          List.of(Aggregate.sum(col("v"), "s"), Aggregate.count(col("x"), "c"), Aggregate.countStar("n"),
              Aggregate.max(col("x"), "m")));
      LogicalRel rewritten = AggregateBeforeLookup.rewrite(plan, DECLARED);
      assertNotEquals(plan, rewritten);
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
    }
  }

  @Example
  void planWithoutDeclaredKeysAFilteredLookupAMeasureOfTheLookupUndeterminedKeysOrNoKeysIsLeftAlone(EngineMemory memory) {
    try (NamedTables t = tables(memory, List.of(1L), List.of(1L), List.of(1L), List.of(1L))) {
      LogicalRel join = new LogicalRel.Join(JoinKind.INNER, t.scan("lines"), t.scan("orders"), List.of("lk"), List.of("ok"));
      LogicalRel byOrder = new LogicalRel.Aggregation(join, List.of(col("lk").as("lk"), col("od").as("od")),
          List.of(Aggregate.sum(col("x"), "s")));
      assertEquals(byOrder, DeterminedGroupingKeys.rewrite(byOrder, scan -> List.of(), TYPES::get));
      assertEquals(byOrder, DeterminedGroupingKeys.rewrite(byOrder, DECLARED, column -> null));
      LogicalRel filtered = new LogicalRel.Join(JoinKind.INNER, t.scan("lines"),
          new LogicalRel.Filter(t.scan("orders"), col("od").gt(Expr.lit(1L))), List.of("lk"), List.of("ok"));
      List<LogicalRel> kept = List.of(
          new LogicalRel.Aggregation(filtered, List.of(col("ok").as("ok"), col("od").as("od")),
              List.of(Aggregate.sum(col("x"), "s"))),
          new LogicalRel.Aggregation(join, List.of(col("ok").as("ok")), List.of(Aggregate.sum(col("od"), "s"))),
          new LogicalRel.Aggregation(join, List.of(col("od").as("od")), List.of(Aggregate.sum(col("x"), "s"))),
          new LogicalRel.Aggregation(join, List.of(), List.of(Aggregate.sum(col("x"), "s"))));
      for (LogicalRel plan : kept) {
        assertEquals(plan, AggregateBeforeLookup.rewrite(plan, DECLARED), plan.toString());
      }
      assertEquals(kept.get(2), AggregateBeforeLookup.rewrite(kept.get(2), scan -> List.of()));
    }
  }

  @Provide
  Arbitrary<List<Long>> foreignKeys() {
    return Arbitraries.oneOf(Arbitraries.longs().between(-3, 9), Arbitraries.of(0L, 1L))
        .injectNull(0.15).list();
  }

  /** The four tables, built from the keys drawn; the other columns follow from a row's position. */
  private static NamedTables tables(EngineMemory memory, List<Long> lines, List<Long> orders, List<Long> customers,
      List<Long> nations) {
    List<Object[]> lineRows = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      lineRows.add(new Object[] {lines.get(i), i % 5 == 0 ? null : (long) (i % 3) - 1});
    }
    List<Object[]> orderRows = new ArrayList<>();
    for (int i = 0; i < orders.size(); i++) {
      orderRows.add(new Object[] {orders.get(i), i % 4 == 3 ? null : (long) (i % 3) * 2 - 1,
          i % 3 == 2 ? null : (long) i % 4, i % 5 == 1 ? null : "o" + (i % 2)});
    }
    List<Object[]> custRows = new ArrayList<>();
    for (int i = 0; i < customers.size(); i++) {
      custRows.add(new Object[] {customers.get(i), i % 4 == 2 ? null : (long) i % 5, i % 3 == 1 ? null : "c" + (i % 2),
          i % 3 == 0 ? null : (long) i % 2});
    }
    List<Object[]> natRows = new ArrayList<>();
    for (int i = 0; i < nations.size(); i++) {
      natRows.add(new Object[] {nations.get(i), i == 1 ? null : "n" + (i % 2)});
    }
    Table lineTable = Fixture.build(List.of("lk", "x"), List.of(ColumnType.INT64, ColumnType.INT64), lineRows, memory);
    Table orderTable = Fixture.build(List.of("ok", "ock", "od", "oname"), List.of(ColumnType.INT64, ColumnType.INT64,
        ColumnType.INT64, ColumnType.STRING), orderRows, memory);
    Table custTable = Fixture.build(List.of("ck", "cnk", "cname", "cbal"), List.of(ColumnType.INT64,
        ColumnType.INT64, ColumnType.STRING, ColumnType.INT64), custRows, memory);
    Table natTable = Fixture.build(List.of("nk", "nname"), List.of(ColumnType.INT64, ColumnType.STRING), natRows,
        memory);
    return new NamedTables().add("lines", lineTable).add("orders", orderTable).add("cust", custTable)
        .add("nat", natTable);
  }
}
