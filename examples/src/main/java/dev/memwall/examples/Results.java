package dev.memwall.examples;

import java.io.IOException;
import java.math.BigDecimal;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/** Reads the example's result as any Arrow consumer would: standard vectors, batch by batch. */
final class Results {
  private Results() {}

  /** One line per row of (region, revenue, orders). */
  static String format(ArrowReader reader) throws IOException {
    StringBuilder out = new StringBuilder();
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    while (reader.loadNextBatch()) {
      VarCharVector region = (VarCharVector) root.getVector("region");
      DecimalVector revenue = (DecimalVector) root.getVector("revenue");
      BigIntVector orders = (BigIntVector) root.getVector("orders");
      for (int row = 0; row < root.getRowCount(); row++) {
        out.append(line(region.getObject(row).toString(), revenue.getObject(row), orders.get(row)));
      }
    }
    return out.toString();
  }

  static String line(String region, BigDecimal revenue, long orders) {
    return region + "\t" + revenue.stripTrailingZeros().toPlainString() + "\t" + orders + "\n";
  }
}
