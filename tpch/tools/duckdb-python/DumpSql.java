// Writes q1.sql .. q22.sql: the TPC-H SQL DuckDB runs, with the validation parameters of scale factor args[0].
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.nio.file.*;
public class DumpSql {
  public static void main(String[] a) throws Exception {
    double sf = Double.parseDouble(a[0]);
    for (int q = 1; q <= 22; q++) {
      Files.writeString(Path.of("q" + q + ".sql"), DuckDbOracle.tpchSql(TpchParameters.validation(q, sf)));
    }
  }
}
