package dev.memwall.tpch.run;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.verify.DuckDbOracle;
import dev.memwall.tpch.verify.QueryResult;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The main class of the process {@link EngineProcess} starts: opens one engine, then answers each
 * {@link EngineRequest} read from standard input with an {@link EngineReply} on standard output, until
 * standard input ends (the parent closed it, or died).
 *
 * <p>Arguments: {@code duckdb CACHE SF THREADS} loads the TPC-H data set at scale factor {@code SF}
 * under {@code CACHE} into DuckDB's native tables; {@code provider NAME DATA_DIR THREADS ACCELERATED
 * [KEY=VALUE...]} opens the {@link QueryEngineProvider} {@code NAME} over the data set in {@code
 * DATA_DIR} with those settings. Standard output carries only the replies: anything else the process
 * prints goes to standard error, which the parent passes on.
 */
public final class EngineChild {
  private EngineChild() {}

  /** The engine the child serves. */
  private interface Served extends AutoCloseable {
    String name();

    /** Runs a TPC-H query, timed by the child. */
    EngineReply.Rows run(QueryParameters parameters) throws Exception;

    /** Runs SQL text as it is (DuckDB only). */
    EngineReply.Rows sql(String sql) throws SQLException;

    @Override
    void close() throws Exception;
  }

  public static void main(String[] args) throws Exception {
    ObjectOutputStream replies = new ObjectOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
    System.setOut(System.err); // before any engine starts logging: stdout carries only the replies
    Served served;
    try {
      served = args[0].equals("duckdb") ? duckDb(args) : provider(args);
    } catch (Exception e) {
      reply(replies, new EngineReply.Failed((args[0].equals("duckdb") ? "cannot load the data set into DuckDB: "
          : "cannot open the " + args[1] + " engine: ") + e, false));
      return;
    }
    try (served; ObjectInputStream requests = new ObjectInputStream(new BufferedInputStream(System.in))) {
      reply(replies, new EngineReply.Ready(served.name()));
      while (true) {
        EngineRequest request;
        try {
          request = (EngineRequest) requests.readObject();
        } catch (EOFException e) {
          return;
        }
        EngineReply answer;
        try {
          answer = switch (request) {
            case EngineRequest.Query query -> served.run(query.parameters());
            case EngineRequest.Sql sql -> served.sql(sql.sql());
            case EngineRequest.AwaitIdle idle -> {
              CompilerThreads.awaitIdle();
              yield new EngineReply.Idle();
            }
          };
        } catch (Exception e) { // the query failed; the engine goes on, as it would in the parent
          answer = new EngineReply.Failed(e instanceof SQLException ? e.getMessage() : e.toString(), true);
        }
        reply(replies, answer);
      }
    } catch (ClassNotFoundException e) {
      reply(replies, new EngineReply.Failed(e.toString(), false));
    }
  }

  /** DuckDB over the data set's files loaded into its native tables (the mapped files are closed after). */
  private static Served duckDb(String[] args) throws IOException, SQLException {
    Path cache = Path.of(args[1]);
    double scaleFactor = Double.parseDouble(args[2]);
    int threads = Integer.parseInt(args[3]);
    DuckDbOracle oracle;
    try (EngineMemory memory = EngineMemory.create("DuckDB child");
        TpchDatabase db = TpchDatabase.open(TpchDataGenerator.dataDirectory(cache, scaleFactor), scaleFactor, memory)) {
      oracle = DuckDbOracle.of(db, threads, memory);
    }
    String name = "DuckDB " + oracle.runSql("SELECT version()").rows().getFirst().getFirst();
    return new Served() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public EngineReply.Rows run(QueryParameters parameters) throws SQLException {
        return sql(DuckDbOracle.tpchSql(parameters));
      }

      @Override
      public EngineReply.Rows sql(String sql) throws SQLException {
        QueryResult result = oracle.runSql(sql);
        return new EngineReply.Rows(result.columns(), result.rows(), result.nanos());
      }

      @Override
      public void close() throws SQLException {
        oracle.close();
      }
    };
  }

  /** The provider's engine; a query's time is the engine's own where it measures one, else the run and its rows. */
  private static Served provider(String[] args) throws Exception {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String setting : Arrays.asList(args).subList(5, args.length)) {
      int equals = setting.indexOf('=');
      settings.put(setting.substring(0, equals), setting.substring(equals + 1));
    }
    QueryEngine engine = QueryEngineProvider.find(args[1])
        .open(Path.of(args[2]), Integer.parseInt(args[3]), Boolean.parseBoolean(args[4]), settings);
    return new Served() {
      @Override
      public String name() {
        return engine.name();
      }

      @Override
      public EngineReply.Rows run(QueryParameters parameters) throws Exception {
        long start = System.nanoTime();
        try (QueryEngine.Result result = engine.run(TpchQueries.require(parameters.query()), parameters)) {
          List<List<Object>> rows = result.values();
          long nanos = result.engineNanos() >= 0 ? result.engineNanos() : System.nanoTime() - start;
          return new EngineReply.Rows(result.columns(), rows, nanos);
        }
      }

      @Override
      public EngineReply.Rows sql(String sql) throws SQLException {
        throw new SQLException("this child runs TPC-H queries, not SQL text");
      }

      @Override
      public void close() {
        engine.close();
      }
    };
  }

  private static void reply(ObjectOutputStream replies, EngineReply reply) throws IOException {
    replies.writeObject(reply);
    replies.reset(); // no back references to earlier replies: each is read, then dropped
    replies.flush();
  }
}
