package dev.memwall.tpch.run;

import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQuery;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An engine in a process of its own, as a {@link QueryEngine}: a child JVM ({@link EngineChild}) that
 * opens the engine and runs each query there, so that no thread of this JVM (its JIT compilers, its
 * collector, memwall's workers) shares the cores while the engine is timed, and none of the engine's
 * while memwall is. DuckDB ({@link #duckDb}) loads the data set's files into its native tables; an
 * engine of a {@link QueryEngineProvider} ({@link #provider}, e.g. Spark alone) reads them as it
 * would in this JVM. A query's time is the child's own, without the rows' trip back.
 *
 * <p>The child runs the same Java with the same JVM options (less agents, see {@link #childOptions})
 * and class path. It ends when {@link #close} closes its standard input, or when this process dies
 * (its standard input ends then too). Thread safety: not thread-safe; use from one thread. Failures:
 * a query the engine rejects or fails is a {@link SQLException} (the child goes on); a child that
 * cannot open its engine, or dies, is an {@link EngineProcessException} naming its exit status.
 */
public final class EngineProcess implements QueryEngine {
  private static final long STOP_SECONDS = 10;

  private final Process process;
  private final ObjectOutputStream requests;
  private final ObjectInputStream replies;
  private final String engine;
  private final String name;

  /**
   * The JVM options of the child from this JVM's {@code parent} ones: the same memory and module
   * settings, but no agent or debugger (a profiler of memwall's run must not time the other engine),
   * none of this JVM's AOT cache options (the cache holds memwall's classes and profiles, and a
   * recording run's file is this JVM's), and every JVM message on stderr, never on stdout, which
   * carries the replies.
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

  /**
   * Removes from a child's {@code environment} the variables from which a JVM takes options besides
   * its command line ({@code JDK_JAVA_OPTIONS}, {@code JAVA_TOOL_OPTIONS}, {@code _JAVA_OPTIONS}). The
   * options they gave this JVM are among its input arguments, which {@link #childOptions} filters; left
   * in the environment they would hand the child this run's agent again, whose banner on stdout also
   * breaks the replies.
   */
  static void dropOptionVariables(Map<String, String> environment) {
    environment.keySet().removeAll(List.of("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"));
  }

  private EngineProcess(Process process, ObjectOutputStream requests, ObjectInputStream replies, String engine,
      String name) {
    this.process = process;
    this.requests = requests;
    this.replies = replies;
    this.engine = engine;
    this.name = name + " (own process)";
  }

  /**
   * DuckDB in a child that has loaded the data set at scale factor {@code scaleFactor} under {@code
   * cache} into its native tables (the set must be complete: the caller loads or generates it first);
   * returns once it has.
   */
  public static EngineProcess duckDb(Path cache, double scaleFactor, int threads) throws IOException {
    return start("DuckDB", List.of("duckdb", cache.toAbsolutePath().toString(), Double.toString(scaleFactor),
        Integer.toString(threads)), System.getProperty("java.class.path"));
  }

  /**
   * The engine {@code provider} opens over {@code dataDirectory} ({@link QueryEngineProvider#open}),
   * in a child; returns once it is open. No key of {@code settings} may contain {@code =}.
   */
  public static EngineProcess provider(String provider, Path dataDirectory, int threads, boolean accelerated,
      Map<String, String> settings) throws IOException {
    return provider(provider, dataDirectory, threads, accelerated, settings, System.getProperty("java.class.path"));
  }

  /**
   * As {@link #provider(String, Path, int, boolean, Map)}, with the child on {@code classPath} instead of
   * this JVM's: for an engine whose libraries cannot share a class path with this JVM's (Comet's Spark
   * 4.1 beside the command line's Spark 4.2). The class path must hold {@link EngineChild} and the
   * provider.
   */
  public static EngineProcess provider(String provider, Path dataDirectory, int threads, boolean accelerated,
      Map<String, String> settings, String classPath) throws IOException {
    List<String> arguments = new ArrayList<>(List.of("provider", provider, dataDirectory.toAbsolutePath().toString(),
        Integer.toString(threads), Boolean.toString(accelerated)));
    settings.forEach((key, value) -> arguments.add(key + "=" + value));
    return start(provider, arguments, classPath);
  }

  private static EngineProcess start(String engine, List<String> arguments, String classPath) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(childOptions(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    command.addAll(List.of("-cp", classPath, EngineChild.class.getName()));
    command.addAll(arguments);
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    dropOptionVariables(builder.environment());
    Process process = builder.start();
    try {
      ObjectOutputStream requests = new ObjectOutputStream(new BufferedOutputStream(process.getOutputStream()));
      requests.flush();
      ObjectInputStream replies = new ObjectInputStream(new BufferedInputStream(process.getInputStream()));
      EngineReply first = read(replies, process, engine);
      if (first instanceof EngineReply.Ready ready) {
        return new EngineProcess(process, requests, replies, engine, ready.name());
      }
      throw new EngineProcessException(first instanceof EngineReply.Failed failed ? failed.message()
          : "unexpected first reply " + first, process, engine);
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
    return ask(new EngineRequest.Query(parameters), "Q" + query.number());
  }

  /** Waits until the child's JIT compilers are idle (at most {@link CompilerThreads#LIMIT}). */
  @Override
  public void awaitIdle() {
    EngineReply reply = exchange(new EngineRequest.AwaitIdle(), "a wait for its idle compilers");
    if (!(reply instanceof EngineReply.Idle)) {
      throw new EngineProcessException("unexpected reply " + reply, process, engine);
    }
  }

  /** Runs {@code sql} as it is in a DuckDB child; {@code what} names it in messages. */
  Result runSql(String sql, String what) throws SQLException {
    return ask(new EngineRequest.Sql(sql), what);
  }

  private Result ask(EngineRequest request, String what) throws SQLException {
    return switch (exchange(request, what)) {
      case EngineReply.Rows rows -> Result.of(rows.columns(), rows.rows(), rows.nanos());
      case EngineReply.Failed failed when failed.rejected() -> throw new SQLException(engine + ": " + failed.message());
      case EngineReply.Failed failed -> throw new EngineProcessException(failed.message(), process, engine);
      case EngineReply.Ready ready -> throw new EngineProcessException("unexpected reply " + ready, process, engine);
      case EngineReply.Idle idle -> throw new EngineProcessException("unexpected reply " + idle, process, engine);
    };
  }

  /** Sends {@code request} and reads the child's reply; {@code what} names the request in messages. */
  private EngineReply exchange(EngineRequest request, String what) {
    try {
      requests.writeObject(request);
      requests.reset();
      requests.flush();
      return read(replies, process, engine);
    } catch (IOException e) {
      throw new EngineProcessException("lost the " + engine + " process while running " + what + ": " + e, process,
          engine);
    }
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

  private static EngineReply read(ObjectInputStream replies, Process process, String engine) throws IOException {
    try {
      return (EngineReply) replies.readObject();
    } catch (ClassNotFoundException e) {
      throw new IOException(e);
    } catch (IOException e) {
      throw new EngineProcessException("the " + engine + " process ended without a reply (" + e + ")", process, engine);
    }
  }
}
