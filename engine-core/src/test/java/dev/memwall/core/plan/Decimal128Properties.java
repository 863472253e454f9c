package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A caller's own Arrow batches with Decimal128 columns (as Spark writes decimals): filtered,
 * grouped and summed against BigDecimal, values up to the precision bound and nulls included.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class Decimal128Properties {

  @Property(tries = 60)
  void decimal128ColumnsFilterAndSumExactly(@ForAll long seed, EngineMemory memory) {
    Random random = new Random(seed);
    int rows = random.nextInt(4000);
    long bound = random.nextBoolean() ? 100_000 : 999_999_999_999_999L; // up to 15 digits
    Schema schema = new Schema(List.of(
        new Field("g", FieldType.nullable(new ArrowType.Int(32, true)), null),
        new Field("amount", FieldType.nullable(new ArrowType.Decimal(15, 2, 128)), null)));
    Map<Integer, BigDecimal> expected = new TreeMap<>();
    BigDecimal threshold = BigDecimal.valueOf(bound / 3, 2);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow())) {
      root.allocateNew();
      IntVector groups = (IntVector) root.getVector("g");
      DecimalVector amounts = (DecimalVector) root.getVector("amount");
      for (int i = 0; i < rows; i++) {
        int group = random.nextInt(5);
        groups.setSafe(i, group);
        if (random.nextInt(10) == 0) {
          amounts.setNull(i);
          continue;
        }
        BigDecimal amount = BigDecimal.valueOf(random.nextLong(-bound, bound + 1), 2);
        amounts.setSafe(i, amount);
        if (amount.compareTo(threshold) < 0) {
          expected.merge(group, amount, BigDecimal::add);
        }
      }
      root.setRowCount(rows);
      try (Table table = Table.borrow(schema, List.of(root), null);
          Table result = Plan.scan(table)
              .filter(col("amount").lt(new Expr.Literal(bound / 3, ColumnType.decimal(2))))
              .aggregate(List.of(col("g").as("g")), Aggregate.sum(col("amount"), "total"))
              .orderBy(SortKey.asc("g"))
              .execute(new ExecutionContext(memory, 2))) {
        Map<Integer, BigDecimal> actual = new TreeMap<>();
        for (Batch batch : result.batches()) {
          for (int r = 0; r < batch.rowCount(); r++) {
            actual.put((Integer) batch.column("g").getObject(r), (BigDecimal) batch.column("total").getObject(r));
          }
        }
        assertEquals(expected, actual);
      }
    }
  }

  @Example
  void widerDecimalsAreReadAndOnlyValuesBeyondInt64AreRefused(EngineMemory memory) {
    assertEquals(ColumnType.decimal(2), ColumnType.of(new Field("p", FieldType.nullable(new ArrowType.Decimal(38, 2, 128)), null)));
    assertEquals(ColumnType.decimal(2), ColumnType.of(new Field("ok", FieldType.nullable(new ArrowType.Decimal(18, 2, 128)), null)));
    Schema schema = new Schema(List.of(new Field("price", FieldType.nullable(new ArrowType.Decimal(30, 2, 128)), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow())) {
      DecimalVector prices = (DecimalVector) root.getVector("price");
      prices.allocateNew(3);
      prices.setSafe(0, new BigDecimal("92233720368547758.07")); // Long.MAX_VALUE unscaled: fits
      prices.setSafe(1, new BigDecimal("-92233720368547758.08")); // Long.MIN_VALUE unscaled: fits
      prices.setSafe(2, new BigDecimal("123456789012345678901234.56"));
      root.setRowCount(2);
      try (Table table = Table.borrow(schema, List.of(root), null);
          Table result = Plan.scan(table).aggregate(List.of(), Aggregate.max(col("price"), "m"))
              .execute(new ExecutionContext(memory, 1))) {
        assertEquals(new BigDecimal("92233720368547758.07"), result.batches().getFirst().column("m").getObject(0));
      }
      root.setRowCount(3);
      try (Table table = Table.borrow(schema, List.of(root), null)) {
        Plan plan = Plan.scan(table).aggregate(List.of(), Aggregate.max(col("price"), "m"));
        var e = assertThrows(ArithmeticException.class, () -> plan.execute(new ExecutionContext(memory, 1)).close());
        assertTrue(e.getMessage().contains("'price'") && e.getMessage().contains("decimal(30,2)")
            && e.getMessage().contains("123456789012345678901234.56") && !e.getMessage().contains("\n"), e.getMessage());
        assertEquals(new BigDecimal("123456789012345678901234.56"), table.batches().getFirst().column("price").getObject(2));
      }
    }
  }
}
