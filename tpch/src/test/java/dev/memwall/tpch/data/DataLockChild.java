package dev.memwall.tpch.data;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.query.TpchQueries;
import java.nio.file.Path;

/**
 * The child JVM of {@link DataDirectoryLockTest}: loads (generating if needed) the SF 0.01 data set
 * under the cache root it is given, then runs Q1 and Q6 and prints their results; exit code 0 when
 * all went well, 3 with the stack trace otherwise.
 */
public final class DataLockChild {
  private DataLockChild() {}

  public static void main(String[] args) {
    Path cache = Path.of(args[0]);
    try (EngineMemory memory = EngineMemory.create("data lock child");
         TpchDatabase db = TpchDatabase.load(cache, 0.01, new TpchDataGenerator(1, true), memory)) {
      System.out.println("result " + results(db, memory));
    } catch (Exception | Error e) {
      e.printStackTrace(System.out);
      System.exit(3);
    }
  }

  /** Q1's and Q6's results, one line. */
  static String results(TpchDatabase db, EngineMemory memory) {
    StringBuilder out = new StringBuilder();
    for (int number : new int[] {1, 6}) {
      try (Table result = TpchQueries.require(number).run(db, new ExecutionContext(memory, 1))) {
        out.append('Q').append(number).append(':');
        for (Batch batch : result.batches()) {
          for (int row = 0; row < batch.rowCount(); row++) {
            for (Column column : batch.columns()) {
              out.append(column.getObject(row)).append(',');
            }
            out.append(';');
          }
        }
      }
    }
    return out.toString();
  }
}
