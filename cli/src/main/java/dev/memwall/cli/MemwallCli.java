package dev.memwall.cli;

import dev.memwall.core.ipc.CorruptArrowFileException;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.MemoryLeakException;
import dev.memwall.sql.SqlException;
import dev.memwall.substrait.UnsupportedPlanException;
import dev.memwall.tpch.data.DataDirectoryException;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.run.EngineProcessException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.sql.SQLException;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code memwall} command line: {@code memwall tpch|sql|calibrate|check|bench [options]}, {@code --help}
 * on each.
 *
 * <p>Exit codes: 0 success; 1 a query result failed verification; 2 bad input (unknown option or
 * query, scale factor not positive, ...) or a command that is not built yet; 3 a data or resource
 * problem (unwritable cache directory, corrupt data file, memory budget too small, DuckDB error;
 * a query that fails under its budget is reported in the table, the others still run);
 * 4 an unexpected internal error. Every error is one line on stderr, without a stack trace.
 *
 * <p>Thread safety: build one command line per invocation.
 */
@Command(name = "memwall", mixinStandardHelpOptions = true, version = "memwall 0.1.0-SNAPSHOT",
    description = "A memory-aware analytical engine kernel: TPC-H runs, SQL, machine calibration, benchmarks.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:success", "1:a query result failed verification",
        "2:bad input (unknown option or query, scale factor not positive, ...)",
        "3:a data or resource problem (unwritable or corrupt data directory, a query that failed under --budget"
            + " or for spill disk, DuckDB error)",
        "4:an unexpected internal error"})
public final class MemwallCli implements Runnable {
  /** Exit code: a result failed verification. */
  public static final int EXIT_VERIFICATION_FAILED = 1;
  /** Exit code: bad input or a command not built yet. */
  public static final int EXIT_BAD_INPUT = 2;
  /** Exit code: data, memory or DuckDB problem. */
  public static final int EXIT_RESOURCE = 3;
  /** Exit code: unexpected internal error. */
  public static final int EXIT_INTERNAL = 4;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    // Logging is bound here, before the SQL front end's loader thread and the opening data both ask
    // for their first loggers at once: SLF4J answers such a race with stand-in loggers and a warning
    // on standard error.
    LoggerFactory.getILoggerFactory();
    System.exit(commandLine().execute(args));
  }

  /** The command line with the registered queries ({@link TpchQueries}). */
  public static CommandLine commandLine() {
    return commandLine(TpchQueries::require, TpchQueries::implemented);
  }

  /**
   * The command line resolving query numbers with {@code queries} (which throws
   * {@link IllegalArgumentException} for an unknown or unimplemented query) and listing the default
   * queries with {@code implemented}; tests pass their own.
   */
  public static CommandLine commandLine(IntFunction<TpchQuery> queries, Supplier<List<Integer>> implemented) {
    return commandLine(queries, implemented, () -> new InputStreamReader(System.in, StandardCharsets.UTF_8));
  }

  /** As {@link #commandLine(IntFunction, Supplier)}, with the console {@code memwall sql}'s prompt reads. */
  static CommandLine commandLine(IntFunction<TpchQuery> queries, Supplier<List<Integer>> implemented,
      Supplier<Reader> console) {
    CommandLine line = new CommandLine(new MemwallCli());
    line.addSubcommand("tpch", new TpchCommand(queries, implemented));
    line.addSubcommand("sql", new SqlCommand(console));
    line.addSubcommand("calibrate", new CalibrateCommand());
    line.addSubcommand("check", new CheckCommand());
    line.addSubcommand("bench", new NotBuiltYet("bench",
        "the ./memwall launcher runs it: './memwall bench [JMH options]' starts JMH on the benchmark class path"));
    line.getSubcommands().get("bench").getCommandSpec().usageMessage()
        .description("Run the JMH benchmarks through the ./memwall launcher: ./memwall bench -h lists JMH's options, "
            + "./memwall bench -l the benchmarks (plotted reports arrive with a later issue).");
    line.setOverwrittenOptionsAllowed(true); // a later --sf wins, as in most command lines
    line.setExecutionExceptionHandler((exception, command, parseResult) -> {
      command.getErr().println(command.getCommandName().equals("memwall") ? "memwall: " + oneLine(exception)
          : "memwall " + command.getCommandName() + ": " + oneLine(exception));
      command.getErr().flush();
      return exitCode(exception);
    });
    line.setParameterExceptionHandler((exception, args) -> {
      CommandLine command = exception.getCommandLine();
      PrintWriter err = command.getErr();
      err.println(command.getCommandSpec().qualifiedName() + ": " + firstLine(exception.getMessage())
          + " (see --help)");
      err.flush();
      return EXIT_BAD_INPUT;
    });
    return line;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static int exitCode(Exception exception) {
    return switch (exception) {
      case IllegalArgumentException e -> EXIT_BAD_INPUT;
      case SqlException e -> EXIT_BAD_INPUT;
      case UnsupportedPlanException e -> EXIT_BAD_INPUT;
      case DataDirectoryException e -> EXIT_RESOURCE;
      case CorruptArrowFileException e -> EXIT_RESOURCE;
      case BudgetExceededException e -> EXIT_RESOURCE;
      case MemoryLeakException e -> EXIT_INTERNAL;
      case IOException e -> EXIT_RESOURCE;
      case SQLException e -> EXIT_RESOURCE;
      case EngineProcessException e -> EXIT_RESOURCE;
      default -> EXIT_INTERNAL;
    };
  }

  static String oneLine(Throwable exception) {
    String message = firstLine(exception.getMessage());
    return switch (exception) {
      case IllegalArgumentException e -> message;
      case SqlException e -> message;
      case UnsupportedPlanException e -> message;
      case DataDirectoryException e -> message;
      case CorruptArrowFileException e -> message;
      case BudgetExceededException e -> message + " (raise --budget)";
      case FileSystemException e -> fileProblem(e);
      case IOException e when e.getCause() instanceof FileSystemException cause && message.endsWith(cause.toString()) ->
          message.substring(0, message.length() - cause.toString().length()) + fileProblem(cause);
      case IOException e -> message;
      case EngineProcessException e -> message;
      case SQLException e -> "DuckDB: " + message;
      default -> exception.getClass().getSimpleName() + ": " + message;
    };
  }

  /**
   * What went wrong with a file, in words rather than the exception's class: {@code permission denied:
   * /data/sf1}, {@code not found: ...}, or the operating system's reason ({@code No space left on
   * device: ...}, {@code Read-only file system: ...}).
   */
  static String fileProblem(FileSystemException e) {
    String problem = switch (e) {
      case AccessDeniedException denied -> "permission denied";
      case NoSuchFileException missing -> "not found";
      case FileAlreadyExistsException exists -> "already exists";
      case NotDirectoryException notDirectory -> "not a directory";
      case DirectoryNotEmptyException notEmpty -> "directory not empty";
      default -> e.getReason() != null ? e.getReason() : "cannot be used";
    };
    return problem + ": " + e.getFile() + (e.getOtherFile() == null ? "" : " (and " + e.getOtherFile() + ")");
  }

  private static String firstLine(String message) {
    if (message == null || message.isBlank()) {
      return "no detail";
    }
    int newline = message.indexOf('\n');
    return (newline < 0 ? message : message.substring(0, newline)).strip();
  }

  /** A subcommand not available in-process (not built yet, or run by the launcher): says why and exits 2. */
  @Command(mixinStandardHelpOptions = true)
  static final class NotBuiltYet implements java.util.concurrent.Callable<Integer> {
    private final String name;
    private final String explanation;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    NotBuiltYet(String name, String explanation) {
      this.name = name;
      this.explanation = explanation;
    }

    @Override
    public Integer call() {
      spec.commandLine().getErr().println("memwall " + name + ": " + explanation);
      spec.commandLine().getErr().flush();
      return EXIT_BAD_INPUT;
    }
  }
}
