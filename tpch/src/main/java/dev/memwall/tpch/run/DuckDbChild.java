package dev.memwall.tpch.run;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.verify.DuckDbOracle;
import dev.memwall.tpch.verify.QueryResult;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.sql.SQLException;

/**
 * The main class of the process {@link DuckDbProcess} starts: loads the TPC-H data set into DuckDB's
 * native tables, then runs each SQL text read from standard input and writes a {@link DuckDbReply} to
 * standard output, until standard input ends (the parent closed it, or died).
 *
 * <p>Arguments: the cache directory, the scale factor and DuckDB's thread count. Standard output
 * carries only the replies: anything else the process prints goes to standard error, which the parent
 * passes on.
 */
public final class DuckDbChild {
  private DuckDbChild() {}

  public static void main(String[] args) throws IOException {
    ObjectOutputStream replies = new ObjectOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
    System.setOut(System.err);
    Path cache = Path.of(args[0]);
    double scaleFactor = Double.parseDouble(args[1]);
    int threads = Integer.parseInt(args[2]);
    DuckDbOracle oracle;
    try (EngineMemory memory = EngineMemory.create("DuckDB child");
        TpchDatabase db = TpchDatabase.open(TpchDataGenerator.dataDirectory(cache, scaleFactor), scaleFactor, memory)) {
      oracle = DuckDbOracle.of(db, threads, memory); // native tables: the mapped files are closed after this
    } catch (IOException | SQLException | RuntimeException e) {
      reply(replies, new DuckDbReply.Failed("cannot load the data set into DuckDB: " + e, false));
      return;
    }
    try (oracle; ObjectInputStream requests = new ObjectInputStream(new BufferedInputStream(System.in))) {
      reply(replies, new DuckDbReply.Ready(String.valueOf(oracle.runSql("SELECT version()").rows().getFirst().getFirst())));
      while (true) {
        String sql;
        try {
          sql = (String) requests.readObject();
        } catch (EOFException e) {
          return;
        }
        DuckDbReply answer;
        try {
          QueryResult result = oracle.runSql(sql);
          answer = new DuckDbReply.Rows(result.columns(), result.rows(), result.nanos());
        } catch (SQLException e) {
          answer = new DuckDbReply.Failed(e.getMessage(), true);
        }
        reply(replies, answer);
      }
    } catch (ClassNotFoundException | SQLException e) {
      reply(replies, new DuckDbReply.Failed(e.toString(), false));
    }
  }

  private static void reply(ObjectOutputStream replies, DuckDbReply reply) throws IOException {
    replies.writeObject(reply);
    replies.reset(); // no back references to earlier replies: each is read, then dropped
    replies.flush();
  }
}
