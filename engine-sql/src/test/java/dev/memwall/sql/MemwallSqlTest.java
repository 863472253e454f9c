package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.TableRows;
import dev.memwall.substrait.UnsupportedPlanException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** SQL text over two small tables with nulls, through Isthmus and the Substrait consumer. */
@ExtendWith(LeakCheck.class)
class MemwallSqlTest {

  /** orders(id INT64, customer INT32, amount DECIMAL(2), placed DATE, "value" FLOAT64) and customers(id INT32, name STRING). */
  private static Catalog catalog(Table orders, Table customers) {
    return new Catalog().register("orders", orders).register("customers", customers);
  }

  private static Table orders(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("id", "customer", "amount", "placed", "value"),
        List.of(ColumnType.INT64, ColumnType.INT32, ColumnType.decimal(2), ColumnType.DATE, ColumnType.FLOAT64),
        memory.arrow())) {
      long[][] rows = {{1, 10, 1250, 9000}, {2, 10, 50, 9100}, {3, 20, 999, 9120}, {4, 30, 100, 9300}, {5, 40, 1, 9400}};
      for (long[] row : rows) {
        builder.appendLong(row[0]);
        if (row[1] == 40) {
          builder.appendNull();
        } else {
          builder.appendLong(row[1]);
        }
        builder.appendLong(row[2]).appendLong(row[3]).appendDouble(row[0] / 2.0).endRow();
      }
      return builder.build();
    }
  }

  private static Table customers(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("id", "name"), List.of(ColumnType.INT32, ColumnType.STRING),
        memory.arrow())) {
      builder.appendLong(10).appendString("ann".getBytes(StandardCharsets.UTF_8)).endRow();
      builder.appendLong(20).appendString("bob".getBytes(StandardCharsets.UTF_8)).endRow();
      builder.appendLong(50).appendNull().endRow();
      return builder.build();
    }
  }

  @Test
  void aCommaJoinWithGroupingAndOrderingRunsAsSql(EngineMemory memory) {
    try (Table orders = orders(memory); Table customers = customers(memory)) {
      String sql = "select c.name, sum(o.amount) as total, count(*) as n from orders o, customers c "
          + "where o.customer = c.id and o.placed < date '1994-01-01' + interval '1' year group by c.name order by total desc";
      try (Table result = Memwall.sql(catalog(orders, customers), sql, new ExecutionContext(memory, 2))) {
        assertEquals(List.of("name", "total", "n"), result.schema().getFields().stream().map(f -> f.getName()).toList());
        assertEquals(List.of(row("ann", new BigDecimal("13.00"), 2L), row("bob", new BigDecimal("9.99"), 1L)), rows(result));
      }
    }
  }

  @Test
  void aLeftJoinKeepsUnmatchedRowsAndAReservedWordIsAColumnWhenQuoted(EngineMemory memory) throws Exception {
    try (Table orders = orders(memory); Table customers = customers(memory)) {
      String sql = "select o.id, c.name, o.\"VALUE\" from orders o left join customers c on o.customer = c.id "
          + "where o.placed >= date '1995-09-01' order by o.id";
      try (Table result = Memwall.sql(catalog(orders, customers), sql, ExecutionContext.singleThreaded(memory))) {
        // placed >= 1995-09-01 is day >= 9374: order 5 only (its customer is null)
        assertEquals(List.of(row(5L, null, 2.5)), rows(result));
      }
      long streamed = 0;
      try (ArrowReader reader = Memwall.stream(catalog(orders, customers), "select id from orders where amount > 5",
          ExecutionContext.singleThreaded(memory), memory.arrow())) {
        while (reader.loadNextBatch()) {
          streamed += reader.getVectorSchemaRoot().getRowCount();
        }
      }
      assertEquals(2, streamed, "amounts 12.50 and 9.99");
    }
  }

  @Test
  void substrIsTheStandardSubstringUnderOtherEnginesName(EngineMemory memory) {
    try (Table orders = orders(memory); Table customers = customers(memory)) {
      Catalog catalog = catalog(orders, customers);
      try (Table result = Memwall.sql(catalog, "select id, substr(name, 2, 1) as mid, "
          + "substring(name from 2 for 1) as std from customers order by id", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(row(10, "n", "n"), row(20, "o", "o"), row(50, null, null)), rows(result),
            "a null name gives a null substring");
      }
      try (Table result = Memwall.sql(catalog, "select id from customers where substr(name, 1, 1) in ('a', 'z') "
          + "order by id", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(row(10)), rows(result));
      }
      try (Table result = Memwall.sql(catalog, "select substr(name, 1, 1) as first_letter, count(*) as n from customers "
          + "group by substr(name, 1, 1) order by first_letter", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(row("a", 1L), row("b", 1L), row(null, 1L)), rows(result), "a computed string key");
      }
      UnsupportedPlanException noLength = assertThrows(UnsupportedPlanException.class,
          () -> Memwall.prepare(catalog, "select substr(name, 2) from customers"));
      assertEquals("root > project: function 'substring' with 2 arguments (start and length are needed)",
          noLength.getMessage(), "substr without a length is the same substring the consumer refuses");
      UnsupportedPlanException twoStrings = assertThrows(UnsupportedPlanException.class,
          () -> Memwall.prepare(catalog, "select c.id from customers c, customers d where c.id = d.id and c.name = d.name"));
      assertTrue(twoStrings.getMessage().contains("function 'equal' over two string expressions"),
          twoStrings.getMessage());
      try (Table result = Memwall.sql(catalog, "select id from customers where name = 'bob'",
          ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(row(20)), rows(result), "a string against a literal still runs");
      }
      SqlException wrongArguments = assertThrows(SqlException.class,
          () -> Memwall.prepare(catalog, "select substr(name) from customers"));
      assertTrue(wrongArguments.getMessage().startsWith("SQL is not valid here: "), wrongArguments.getMessage());
    }
  }

  @Test
  void sqlThatDoesNotParseOrValidateIsRefusedByName(EngineMemory memory) {
    try (Table orders = orders(memory); Table customers = customers(memory)) {
      Catalog catalog = catalog(orders, customers);
      SqlException parse = assertThrows(SqlException.class, () -> Memwall.prepare(catalog, "select from where"));
      assertTrue(parse.getMessage().startsWith("SQL does not parse: "), parse.getMessage());
      SqlException unknown = assertThrows(SqlException.class, () -> Memwall.prepare(catalog, "select nope from orders"));
      assertTrue(unknown.getMessage().startsWith("SQL is not valid here: ") && unknown.getMessage().contains("Column 'nope' not found"),
          unknown.getMessage());
    }
  }

  @Test
  void inNotInExistsAndScalarSubqueriesRunAndACorrelatedNotInIsRefusedBeforeRunning(EngineMemory memory) {
    try (Table orders = orders(memory); Table customers = customers(memory)) {
      Catalog catalog = catalog(orders, customers);
      try (Table result = Memwall.sql(catalog, "select id from orders where customer in (select id from customers) "
          + "order by id", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(row(1L), row(2L), row(3L)), rows(result), "customers 10 and 20 exist, 30 does not");
      }
      try (Table result = Memwall.sql(catalog, "select id from orders o where not exists (select * from customers c "
          + "where c.id = o.customer and c.name = 'ann') order by id", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(row(3L), row(4L), row(5L)), rows(result), "ann is customer 10, of orders 1 and 2");
      }
      try (Table result = Memwall.sql(catalog, "select id from orders where amount > (select avg(amount) from orders) "
          + "order by id", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(row(1L), row(3L)), rows(result), "the average amount is 4.798");
      }
      try (Table result = Memwall.sql(catalog, "select id from orders o where amount > (select avg(amount) from orders i "
          + "where i.customer = o.customer)", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(row(1L)), rows(result), "customer 10's average is 6.50; order 5 has no customer");
      }
      try (Table result = Memwall.sql(catalog, "select id from orders where customer not in (select id from customers) "
          + "order by id", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(row(4L)), rows(result), "customer 30 is not among 10, 20 and 50; order 5's null is not "
            + "known to be absent");
      }
      try (Table result = Memwall.sql(catalog, "select id from orders o where exists (select * from orders i "
          + "where i.customer = o.customer and i.id <> o.id) order by id", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(row(1L), row(2L)), rows(result), "only customer 10 has a second order");
      }
      UnsupportedPlanException e = assertThrows(UnsupportedPlanException.class, () -> Memwall.prepare(catalog,
          "select id from orders o where customer not in (select c.id from customers c where c.id > o.id)"));
      assertEquals("root > project > filter (not in) > project > filter: outer reference (a correlated subquery)",
          e.getMessage());
    }
  }

  @Test
  void resultColumnsAreNamedAsTheQueryWritesAliasesAndAsTheTableStoresColumns(EngineMemory memory) throws Exception {
    try (Table orders = orders(memory); Table customers = customers(memory)) {
      Catalog catalog = catalog(orders, customers);
      try (Table result = Memwall.sql(catalog, "select ID, o.Amount, amount + amount as Doubled, sum(\"value\") as \"Quoted Sum\", "
          + "count(*) from ORDERS o where Id < 3 group by id, amount order by id", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of("id", "amount", "Doubled", "Quoted Sum", "EXPR$4"),
            result.schema().getFields().stream().map(f -> f.getName()).toList(),
            "aliases as written, columns as stored however written, an unnamed expression as Calcite names it");
        assertEquals(List.of(row(1L, new BigDecimal("12.50"), new BigDecimal("25.00"), 0.5, 1L),
            row(2L, new BigDecimal("0.50"), new BigDecimal("1.00"), 1.0, 1L)), rows(result));
      }
      try (ArrowReader reader = Memwall.stream(catalog, "select c.Name, c.id as \"ID\" from customers c",
          ExecutionContext.singleThreaded(memory), memory.arrow())) {
        assertEquals(List.of("name", "ID"),
            reader.getVectorSchemaRoot().getSchema().getFields().stream().map(f -> f.getName()).toList());
      }
      try (Table result = Memwall.sql(catalog, "select * from (select Id as Key, NAME from customers) where key > 10",
          ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of("Key", "name"), result.schema().getFields().stream().map(f -> f.getName()).toList(),
            "a derived table's columns named as its select list names them");
      }
    }
  }

  @Test
  void nullsSortLastByDefaultInBothDirectionsAndWhereNullsFirstOrLastPutsThem(EngineMemory memory) {
    try (Table orders = orders(memory); Table customers = customers(memory)) {
      Catalog catalog = catalog(orders, customers);
      // customers of orders 1 to 5: 10, 10, 20, 30, null; ties keep the input's order
      Map<String, List<Long>> expected = new LinkedHashMap<>();
      expected.put("customer", List.of(1L, 2L, 3L, 4L, 5L));
      expected.put("customer desc", List.of(4L, 3L, 1L, 2L, 5L));
      expected.put("customer nulls first", List.of(5L, 1L, 2L, 3L, 4L));
      expected.put("customer asc nulls last", List.of(1L, 2L, 3L, 4L, 5L));
      expected.put("customer desc nulls first", List.of(5L, 4L, 3L, 1L, 2L));
      expected.put("customer desc nulls last", List.of(4L, 3L, 1L, 2L, 5L));
      expected.put("customer desc nulls first, id desc", List.of(5L, 4L, 3L, 2L, 1L));
      expected.put("customer nulls first limit 2", List.of(5L, 1L));
      expected.put("customer desc limit 4", List.of(4L, 3L, 1L, 2L));
      for (Map.Entry<String, List<Long>> order : expected.entrySet()) {
        try (Table result = Memwall.sql(catalog, "select id from orders order by " + order.getKey(),
            new ExecutionContext(memory, 2))) {
          assertEquals(order.getValue(), rows(result).stream().map(r -> (Long) r.getFirst()).toList(),
              "order by " + order.getKey());
        }
      }
    }
  }

  @Test
  void integerArithmeticIsAnIntegerWhoseOverflowIsAnError(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("a"), List.of(ColumnType.INT32), memory.arrow())) {
      builder.appendLong(Integer.MAX_VALUE).endRow();
      builder.appendLong(Integer.MIN_VALUE).endRow();
      builder.appendNull().endRow();
      try (Table t = builder.build()) {
        Catalog catalog = new Catalog().register("t", t);
        ExecutionContext context = new ExecutionContext(memory, 1);
        try (Table result = Memwall.sql(catalog, "select a - 1 as x from t where a > 0 or a is null", context)) {
          assertEquals(new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true),
              result.schema().findField("x").getType(), "INTEGER - INTEGER is an INTEGER");
          assertEquals(List.of(row(Integer.MAX_VALUE - 1), row((Object) null)), rows(result));
        }
        for (String overflowing : List.of("a + 1", "a * 2", "a - (-1)", "a + a", "-a", "a - 1")) {
          String sql = "select " + overflowing + " as x from t";
          assertThrows(ArithmeticException.class, () -> Memwall.sql(catalog, sql, context).close(), sql);
        }
      }
    }
  }

  @Test
  void aLimitOfNoRowsEvaluatesNothingBelowIt(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("k"), List.of(ColumnType.INT64), memory.arrow())) {
      builder.appendLong(Long.MIN_VALUE).endRow();
      builder.appendLong(7).endRow();
      try (Table t = builder.build()) {
        Catalog catalog = new Catalog().register("t", t);
        ExecutionContext context = new ExecutionContext(memory, 2);
        try (Table none = Memwall.sql(catalog, "select k - 1 as d from t order by d limit 0", context);
            Table noGroups = Memwall.sql(catalog, "select count(*) as n from t limit 0", context)) {
          assertEquals(List.of(), rows(none));
          assertEquals(List.of(), rows(noGroups));
        }
        // the same expression under a limit that passes rows is evaluated, and overflows
        assertThrows(ArithmeticException.class,
            () -> Memwall.sql(catalog, "select k - 1 as d from t order by d limit 1", context).close());
      }
    }
  }

  private static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  private static List<List<Object>> rows(Table table) {
    return TableRows.of(table);
  }
}
