package dev.memwall.tpch.query;

import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.DateColumn;
import dev.memwall.core.vector.DecimalColumn;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Test-only TPC-H Q6 as a plain loop over column accessors (no operators): revenue =
 * sum(l_extendedprice * l_discount) over a year of shipments from DATE with discount DISCOUNT +- 0.01
 * and quantity below QUANTITY, as an exact DECIMAL(scale 4). {@code skew} adds that many cents to the result, to test that wrong
 * results are caught.
 */
public record LoopQ6(int number, long skewCents) implements TpchQuery {
  public LoopQ6() {
    this(6, 0);
  }

  @Override
  public Table run(TpchDatabase database, QueryParameters parameters, ExecutionContext context) {
    LocalDate date = parameters.date("DATE");
    int from = (int) date.toEpochDay();
    int to = (int) date.plusYears(1).toEpochDay();
    long discountCents = parameters.decimal("DISCOUNT").movePointRight(2).longValueExact();
    long quantityCents = parameters.integer("QUANTITY") * 100L;
    long revenue = 0; // scale 2 * scale 2 = scale 4
    for (Batch batch : database.table("lineitem").batches()) {
      DateColumn shipdate = (DateColumn) batch.column("l_shipdate");
      DecimalColumn discount = (DecimalColumn) batch.column("l_discount");
      DecimalColumn quantity = (DecimalColumn) batch.column("l_quantity");
      DecimalColumn price = (DecimalColumn) batch.column("l_extendedprice");
      for (int row = 0; row < batch.rowCount(); row++) {
        int day = shipdate.get(row);
        long d = discount.get(row);
        if (day >= from && day < to && d >= discountCents - 1 && d <= discountCents + 1 && quantity.get(row) < quantityCents) {
          revenue += price.get(row) * d;
        }
      }
    }
    revenue += skewCents * 100;
    Schema schema = new Schema(List.of(ColumnType.decimal(4).toField("revenue", false, null)));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, context.memory().arrow());
    BigIntVector vector = (BigIntVector) root.getVector(0);
    vector.allocateNew(1);
    vector.set(0, revenue);
    root.setRowCount(1);
    return Table.own(schema, List.of(root), Map.of());
  }
}
