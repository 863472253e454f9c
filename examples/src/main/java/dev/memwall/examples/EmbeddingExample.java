package dev.memwall.examples;

import static dev.memwall.core.expr.Expr.and;
import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.date;
import static dev.memwall.core.expr.Expr.decimal;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.relational.Relation;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * A host program embedding memwall, as the README shows it: the host builds Arrow batches with its
 * own allocator, hands them to memwall without a copy, and runs a filter, a join, a grouped
 * aggregation and a top-N on its own thread pool under a memory limit. It prints the top regions by
 * revenue and checks them against the same answer computed with plain Java loops, exiting with 1 on
 * any difference.
 *
 * <p>It needs no JVM flag: the tests run it in a child JVM started with none.
 */
public final class EmbeddingExample {
  static final int CUSTOMERS = 1_000;
  static final int ORDERS = 200_000;
  static final List<String> REGIONS = List.of("AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST");
  static final LocalDate FIRST_DAY = LocalDate.of(2025, 1, 1);

  private EmbeddingExample() {}

  public static void main(String[] args) throws IOException {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (BufferAllocator host = new RootAllocator();
        VectorSchemaRoot customers = customers(host);
        VectorSchemaRoot orders = orders(host);
        EngineMemory memory = EngineMemory.create(MemoryBudget.of("example", 256L << 20))) {
      ExecutionContext context = ExecutionContext.builder(memory).threads(2).executor(pool).build();
      try (Table customerTable = Table.borrow(customers.getSchema(), List.of(customers), null);
          Table orderTable = Table.borrow(orders.getSchema(), List.of(orders), null)) {
        Relation bigOrders = Relation.scan(orderTable, context)
            .filter(and(col("o_date").ge(date("2025-03-01")), col("o_amount").gt(decimal("10.00"))));
        Relation regions = Relation.scan(customerTable, context);
        Relation top = bigOrders.join(regions).on("o_cust", "c_id").keep("o_amount", "c_region")
            .aggregate(List.of(col("c_region").as("region")), Aggregate.sum(col("o_amount"), "revenue"),
                Aggregate.countStar("orders"))
            .orderBy(SortKey.desc("revenue")).limit(3);
        // standard Arrow out, streamed into the host's allocator: Decimal128 revenue, Utf8 region
        try (ArrowReader result = top.stream(host)) {
          String printed = Results.format(result);
          System.out.print(printed);
          String expected = Reference.topRegions(3);
          if (!printed.equals(expected)) {
            System.err.println("memwall's answer differs from the reference:\n" + expected);
            System.exit(1);
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Customer i lives in region i % 5. */
  static VectorSchemaRoot customers(BufferAllocator allocator) {
    IntVector id = new IntVector("c_id", allocator);
    VarCharVector region = new VarCharVector("c_region", allocator);
    id.allocateNew(CUSTOMERS);
    region.allocateNew(CUSTOMERS);
    for (int i = 0; i < CUSTOMERS; i++) {
      id.set(i, i);
      region.setSafe(i, REGIONS.get(i % REGIONS.size()).getBytes(StandardCharsets.UTF_8));
    }
    VectorSchemaRoot root = VectorSchemaRoot.of(id, region);
    root.setRowCount(CUSTOMERS);
    return root;
  }

  /** Order i: customer (i * 7) % 1000, amount (i % 5000) / 100 with two decimals, day i % 365 of 2025. */
  static VectorSchemaRoot orders(BufferAllocator allocator) {
    IntVector customer = new IntVector("o_cust", allocator);
    DecimalVector amount = new DecimalVector("o_amount", allocator, 15, 2);
    DateDayVector day = new DateDayVector("o_date", allocator);
    customer.allocateNew(ORDERS);
    amount.allocateNew(ORDERS);
    day.allocateNew(ORDERS);
    for (int i = 0; i < ORDERS; i++) {
      customer.set(i, customerOf(i));
      amount.set(i, amountOf(i));
      day.set(i, (int) dayOf(i).toEpochDay());
    }
    VectorSchemaRoot root = VectorSchemaRoot.of(customer, amount, day);
    root.setRowCount(ORDERS);
    return root;
  }

  static int customerOf(int order) {
    return (order * 7) % CUSTOMERS;
  }

  static BigDecimal amountOf(int order) {
    return BigDecimal.valueOf(order % 5000, 2);
  }

  static LocalDate dayOf(int order) {
    return FIRST_DAY.plusDays(order % 365);
  }
}
