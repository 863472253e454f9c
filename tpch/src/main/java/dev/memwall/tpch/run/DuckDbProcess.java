package dev.memwall.tpch.run;

import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * DuckDB in a process of its own, as a {@link QueryEngine}: a child JVM ({@link DuckDbChild}) that
 * loads the data set's files into DuckDB's native tables and runs each query's SQL there, so that no
 * thread of memwall's JVM (its JIT compilers, its collector, its workers) shares the cores while DuckDB
 * is timed, and no DuckDB thread while memwall is. A query's time is the child's own (execution and
 * fetching every row over JDBC, as in {@link DuckDbEngine}), without the rows' trip back.
 *
 * <p>The child runs the same Java with the same JVM options (less agents) and class path. It ends when
 * {@link #close} closes its standard input, or when this process dies (its standard input ends then
 * too). Thread safety: not thread-safe; use from one thread. Failures: a query DuckDB rejects is a
 * {@link SQLException}; a child that cannot load the data or dies is a {@link DuckDbProcessException}
 * naming its exit status.
 */
public final class DuckDbProcess implements QueryEngine {
  private static final long STOP_SECONDS = 10;

  private final Process process;
  private final ObjectOutputStream requests;
  private final ObjectInputStream replies;
  private final String name;

  /**
   * The JVM options of the child from this JVM's {@code parent} ones: the same memory and module
   * settings, but no agent or debugger (a profiler of memwall's run must not time DuckDB), none of this
   * JVM's AOT cache options (the cache holds memwall's classes and profiles, and a recording run's file
   * is this JVM's), and every JVM message on stderr, never on stdout, which carries the replies.
   */
  static List<String> childOptions(List<String> parent) {
    List<String> options = new ArrayList<>();
    for (String option : parent) {
      if (!option.startsWith("-agent") && !option.startsWith("-javaagent") && !option.startsWith("-Xrunjdwp")
          && !option.startsWith("-XX:AOT") && !option.startsWith("-Xlog")) {
        options.add(option);
      }
    }
    options.addAll(List.of("-Xlog:disable", "-Xlog:all=warning:stderr"));
    return options;
  }

  private DuckDbProcess(Process process, ObjectOutputStream requests, ObjectInputStream replies, String version) {
    this.process = process;
    this.requests = requests;
    this.replies = replies;
    this.name = "DuckDB " + version + " (own process)";
  }

  /**
   * Starts the child and waits until it has loaded the data set at scale factor {@code scaleFactor}
   * under {@code cache} (which must be complete: the caller loads or generates it first).
   */
  public static DuckDbProcess start(Path cache, double scaleFactor, int threads) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(childOptions(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), DuckDbChild.class.getName(),
        cache.toAbsolutePath().toString(), Double.toString(scaleFactor), Integer.toString(threads)));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      ObjectOutputStream requests = new ObjectOutputStream(new BufferedOutputStream(process.getOutputStream()));
      requests.flush();
      ObjectInputStream replies = new ObjectInputStream(new BufferedInputStream(process.getInputStream()));
      DuckDbReply first = read(replies, process);
      if (first instanceof DuckDbReply.Ready ready) {
        return new DuckDbProcess(process, requests, replies, ready.version());
      }
      throw new DuckDbProcessException(first instanceof DuckDbReply.Failed failed ? failed.message()
          : "unexpected first reply " + first, process);
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Result run(TpchQuery query, QueryParameters parameters) throws SQLException {
    return runSql(DuckDbOracle.tpchSql(parameters), "Q" + query.number());
  }

  /** Runs {@code sql} in the child; {@code what} names it in messages. */
  Result runSql(String sql, String what) throws SQLException {
    DuckDbReply reply;
    try {
      requests.writeObject(sql);
      requests.reset();
      requests.flush();
      reply = read(replies, process);
    } catch (IOException e) {
      throw new DuckDbProcessException("lost the DuckDB process while running " + what + ": " + e, process);
    }
    return switch (reply) {
      case DuckDbReply.Rows rows -> new Timed(Result.of(rows.columns(), rows.rows()), rows.nanos());
      case DuckDbReply.Failed failed when failed.sql() -> throw new SQLException("DuckDB: " + failed.message());
      case DuckDbReply.Failed failed -> throw new DuckDbProcessException(failed.message(), process);
      case DuckDbReply.Ready ready -> throw new DuckDbProcessException("unexpected reply " + ready, process);
    };
  }

  /** The child, for tests. */
  Process process() {
    return process;
  }

  /** Closes the child's standard input and waits for it to end; kills it if it does not in time. */
  @Override
  public void close() {
    try {
      requests.close();
      if (!process.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static DuckDbReply read(ObjectInputStream replies, Process process) throws IOException {
    try {
      return (DuckDbReply) replies.readObject();
    } catch (ClassNotFoundException e) {
      throw new IOException(e);
    } catch (IOException e) {
      throw new DuckDbProcessException("the DuckDB process ended without a reply (" + e + ")", process);
    }
  }

  /** A result whose time the child measured. */
  private record Timed(Result rows, long engineNanos) implements Result {
    @Override
    public List<String> columns() {
      return rows.columns();
    }

    @Override
    public long rowCount() {
      return rows.rowCount();
    }

    @Override
    public List<List<Object>> values() {
      return rows.values();
    }
  }
}
