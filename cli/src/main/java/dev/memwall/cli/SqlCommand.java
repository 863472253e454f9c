package dev.memwall.cli;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.sql.Memwall;
import dev.memwall.sql.SqlException;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.UnsupportedPlanException;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.run.TpchCatalog;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code memwall sql}: SQL over the TPC-H tables of a scale factor (generated once, as
 * {@code memwall tpch} does), planned by engine-sql and run by memwall. {@code --table NAME=FILE}
 * adds an Arrow IPC file as a table and {@code --data-set DIR} every table of a memwall data set
 * directory (both repeatable); with either, the TPC-H tables are only there when {@code --sf} is
 * given too. A missing or corrupt file, or a name given twice, fails before any statement runs
 * (exit code 3 or 2). With a statement it runs
 * that one; without, it reads statements from the console, each ended by {@code ;}, until
 * {@code quit} or the end of input, keeping them for {@code history} and {@code !N}.
 *
 * <p>{@code --explain}, or a statement that starts with {@code EXPLAIN} (optionally
 * {@code EXPLAIN PLAN FOR}), prints memwall's plan instead of running it. A statement that does
 * not parse or validate, or that memwall refuses, is one line on stderr with the reason: exit code
 * 2 for a statement given as an argument; at the prompt the next statement is read. See
 * {@link MemwallCli} for the other exit codes.
 */
@Command(name = "sql", mixinStandardHelpOptions = true,
    description = "Run SQL over the TPC-H tables of a scale factor, or Arrow files and data sets (a statement, or a"
        + " prompt without one).")
final class SqlCommand implements Callable<Integer> {
  private static final Pattern EXPLAIN = Pattern.compile("(?is)^\\s*explain(\\s+plan\\s+for)?\\s+(.*)$");

  private final Supplier<Reader> console;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(arity = "0..1", paramLabel = "SQL",
      description = "The statement (default: read statements at a prompt, each ended by ';').")
  String statement;

  @Option(names = "--sf", defaultValue = "1", paramLabel = "SF", description = "Scale factor (default ${DEFAULT-VALUE}).")
  double scaleFactor;

  @Option(names = "--table", paramLabel = "NAME=FILE",
      description = "Add the Arrow IPC file FILE as table NAME (repeatable); without --sf, no TPC-H tables.")
  Map<String, Path> files = new LinkedHashMap<>();

  @Option(names = "--data-set", paramLabel = "DIR",
      description = "Add every table of the memwall data set in DIR (<table>-<n>.arrow parts and other Arrow files;"
          + " repeatable); without --sf, no TPC-H tables.")
  List<Path> dataSets = new ArrayList<>();

  @Option(names = "--explain", description = "Print memwall's plan instead of running the statement.")
  boolean explain;

  @Option(names = "--max-rows", defaultValue = "50", paramLabel = "N",
      description = "Rows printed per result; the count of all is printed too (default ${DEFAULT-VALUE}).")
  int maxRows;

  @Option(names = "--threads", paramLabel = "N",
      description = "Threads (default: all cores; at most 4 per core, more is cut with a warning).")
  Integer threads;

  @Mixin CacheDirectoryOption cacheDirectory;

  @Option(names = {"-q", "--quiet"}, description = "No progress bar while generating data.")
  boolean quiet;

  /** {@code console}: where the prompt reads statements (standard input, or a test's text). */
  SqlCommand(Supplier<Reader> console) {
    this.console = console;
  }

  @Override
  public Integer call() throws IOException {
    TpchDataGenerator.checkScaleFactor(scaleFactor);
    if (maxRows < 0) {
      throw new IllegalArgumentException("--max-rows is 0 or more, not " + maxRows);
    }
    int threadCount = ThreadCap.threads(threads, Runtime.getRuntime().availableProcessors(), spec.commandLine().getErr());
    Memwall.preload(); // the SQL front end's shared state loads while the data opens
    boolean tpch = files.isEmpty() && dataSets.isEmpty() || spec.commandLine().getParseResult().hasMatchedOption("--sf");
    try (EngineMemory memory = EngineMemory.create(MemoryBudget.unbounded("memwall sql"));
        TpchDatabase db = tpch ? TpchDatabase.load(cacheDirectory.directory(), scaleFactor,
            new TpchDataGenerator(threadCount, quiet), memory) : null;
        Catalog catalog = db == null ? new Catalog() : TpchCatalog.of(db)) {
      for (Map.Entry<String, Path> file : files.entrySet()) {
        catalog.registerFile(file.getKey(), file.getValue(), memory);
      }
      for (Path dataSet : dataSets) {
        catalog.registerDataSet(dataSet, memory);
      }
      ExecutionContext context = new ExecutionContext(memory, threadCount);
      if (statement != null) {
        return execute(catalog, context, statement) ? 0 : MemwallCli.EXIT_BAD_INPUT;
      }
      prompt(catalog, context);
      return 0;
    }
  }

  /** Reads statements until {@code quit}, {@code exit} or the end of input. */
  private void prompt(Catalog catalog, ExecutionContext context) throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    List<String> history = new ArrayList<>();
    out.println("memwall sql over " + String.join(", ", catalog.tables().keySet())
        + ": statements end with ';'; history, !N, quit");
    try (BufferedReader in = new BufferedReader(console.get())) {
      StringBuilder pending = new StringBuilder();
      while (true) {
        out.print(pending.isEmpty() ? "memwall> " : "      -> ");
        out.flush();
        String line = in.readLine();
        if (line == null) {
          out.println();
          out.flush();
          return;
        }
        String command = line.strip();
        if (pending.isEmpty()) {
          if (command.isEmpty()) {
            continue;
          }
          String word = command.endsWith(";") ? command.substring(0, command.length() - 1).strip() : command;
          switch (word.toLowerCase(Locale.ROOT)) {
            case "quit", "exit" -> {
              return;
            }
            case "history" -> {
              for (int i = 0; i < history.size(); i++) {
                out.println((i + 1) + "  " + history.get(i));
              }
              continue;
            }
            default -> {}
          }
          if (word.startsWith("!")) {
            String again = recalled(history, word);
            if (again != null) {
              out.println(again);
              history.add(again);
              execute(catalog, context, again);
            }
            continue;
          }
        }
        pending.append(pending.isEmpty() ? "" : "\n").append(line);
        if (command.endsWith(";")) {
          String text = pending.toString().strip();
          pending.setLength(0);
          history.add(text);
          execute(catalog, context, text);
        }
      }
    }
  }

  /** Statement {@code !N} of {@code history}; null (after saying why) when there is none. */
  private String recalled(List<String> history, String word) {
    try {
      int number = Integer.parseInt(word.substring(1));
      if (number >= 1 && number <= history.size()) {
        return history.get(number - 1);
      }
    } catch (NumberFormatException e) {
      // said below
    }
    spec.commandLine().getErr().println("memwall sql: no statement " + word + " in the history (1 to "
        + history.size() + ")");
    spec.commandLine().getErr().flush();
    return null;
  }

  /** Runs or explains one statement; false (after one line on stderr) when it is refused. */
  private boolean execute(Catalog catalog, ExecutionContext context, String text) {
    String sql = text.strip();
    while (sql.endsWith(";")) {
      sql = sql.substring(0, sql.length() - 1).strip();
    }
    boolean explained = explain;
    Matcher explainStatement = EXPLAIN.matcher(sql);
    if (explainStatement.matches()) {
      explained = true;
      sql = explainStatement.group(2);
    }
    PrintWriter out = spec.commandLine().getOut();
    try {
      if (explained) {
        out.print(Memwall.prepare(catalog, sql).explain());
      } else {
        try (Table result = Memwall.sql(catalog, sql, context)) {
          TextTable.print(result, maxRows, out);
        }
      }
      out.flush();
      return true;
    } catch (SqlException | UnsupportedPlanException | IllegalArgumentException e) {
      out.flush();
      spec.commandLine().getErr().println("memwall sql: " + MemwallCli.oneLine(e));
      spec.commandLine().getErr().flush();
      return false;
    }
  }
}
