package dev.memwall.bench;

import dev.memwall.bench.report.ReportException;
import dev.memwall.bench.report.ReportGenerator;
import dev.memwall.bench.report.ReportSettings;
import dev.memwall.bench.run.JmhRun;
import dev.memwall.hw.ProfilerEvents;
import dev.memwall.bench.run.RunDefaults;
import dev.memwall.hw.AsyncProfilerLibrary;
import dev.memwall.hw.HardwareCounters;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.ProfilersFailedException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * The main class of {@code jmh-benchmarks/target/benchmarks.jar}, run by {@code ./memwall bench}:
 * JMH with memwall's defaults, async-profiler on request, and the report of stored results.
 *
 * <pre>
 *   ./memwall bench [REGEX...] [JMH options]     run benchmarks (defaults: {@link RunDefaults#FULL})
 *   ./memwall bench --quick ...                  smoke run ({@link RunDefaults#QUICK})
 *   ./memwall bench --profile EVENT ...          with async-profiler, flame graphs per benchmark
 *   ./memwall bench --report [FILE...] [--out DIR] [--baseline SEL] [--x-axis PARAM]
 *   ./memwall bench -l | --list                  list the benchmarks
 * </pre>
 *
 * <p>Everything not listed above goes to JMH's own command line ({@code -f}, {@code -wi},
 * {@code -p name=v1,v2}, {@code -prof gc}, {@code -rf}/{@code -rff}, ...). JMH forks inherit this
 * JVM's flags (the launcher starts it with the engine's {@code jvm.args}).
 *
 * <p>Exit status: 0 on success; 1 when JMH's run fails (no matching benchmark, a benchmark or
 * profiler error); 2 on bad input (an unknown option or event, a corrupt result file, an
 * unwritable report directory), reported in one line without a stack trace.
 */
@Command(name = "memwall bench", sortOptions = false, usageHelpWidth = 110,
    description = "Runs memwall's JMH benchmarks with defaults for small shared machines, profiles them with "
        + "async-profiler, and turns stored results into a Markdown report with charts.",
    footer = {"", "Any other argument goes to JMH (benchmark regexes, -f, -wi, -w, -i, -r, -p name=v1,v2, -prof, "
        + "-rf/-rff, ...); JMH's options follow."})
public final class BenchMain {
  /** Where results and profiles go unless the user says otherwise (relative to the working directory). */
  public static final Path RESULTS = Path.of("bench-results");
  /** Where the report goes unless {@code --out} says otherwise. */
  public static final Path REPORT = Path.of("bench-report");

  @Option(names = "--quick", description = "Smoke run: " + RunDefaults.QUICK_OPTIONS + " (JMH options given win).")
  boolean quick;

  @Option(names = "--profile", paramLabel = "EVENT", description = "Profile with async-profiler and keep flame graphs "
      + "in bench-results/profiles/<benchmark>/. EVENT: cpu, wall, alloc, lock, itimer, ctimer, or a perf event "
      + "(cache-misses, cycles, LLC-load-misses, dTLB-load-misses, ...). Hardware events fall back to cpu where "
      + "the machine has no hardware counters.")
  String profile;

  @Option(names = "--report", arity = "0..*", paramLabel = "FILE", description = "Write the report for these JMH "
      + "JSON result files (default: bench-results/*.json but not quick-*.json) instead of running benchmarks.")
  List<Path> report;

  @Option(names = "--out", paramLabel = "DIR", description = "Report directory (default: bench-report).")
  Path outOption;

  @Option(names = "--baseline", paramLabel = "[CLASS:]SELECTOR", description = "Baseline rows for speedups: a method "
      + "(duckdb), a method pattern with one * (*HeapArray) or param=value (algorithm=nestedLoops); CLASS: limits it "
      + "to one benchmark class. Repeatable. Default: the class's @ReportLayout, else a method named baseline or a "
      + "param value baseline.")
  List<String> baselines = new ArrayList<>();

  @Option(names = "--x-axis", paramLabel = "[CLASS:]PARAM", description = "The numeric @Param on the charts' x axis "
      + "('-': none, bar charts). Default: the class's @ReportLayout, else the numeric param with the most values.")
  List<String> xAxes = new ArrayList<>();

  @Option(names = {"-l", "--list"}, description = "List the benchmarks (JMH's -l).")
  boolean list;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and JMH's options.")
  boolean help;

  @Unmatched
  List<String> jmhArguments = new ArrayList<>();

  private final PrintStream out;
  private final PrintStream err;
  private final Supplier<HardwareCounters.Availability> counters;

  BenchMain(PrintStream out, PrintStream err, Supplier<HardwareCounters.Availability> counters) {
    this.out = out;
    this.err = err;
    this.counters = counters;
  }

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(new BenchMain(System.out, System.err, HardwareCounters::availability).run(args));
  }

  /** Runs the command line; returns the exit status (0, 1 or 2, see the class documentation). */
  int run(String... args) {
    CommandLine commandLine = new CommandLine(this);
    commandLine.setUnmatchedArgumentsAllowed(true);
    commandLine.setPosixClusteredShortOptionsAllowed(false);
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    try {
      commandLine.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      return fail(e.getMessage());
    }
    if (help) {
      commandLine.usage(out);
      out.println();
      try {
        new CommandLineOptions().showHelp();
      } catch (IOException | CommandLineOptionException e) {
        return fail("cannot show JMH's options: " + e.getMessage());
      }
      return 0;
    }
    if (report != null) {
      return report();
    }
    if (outOption != null || !baselines.isEmpty() || !xAxes.isEmpty()) {
      return fail("--out, --baseline and --x-axis belong to --report");
    }
    return benchmark();
  }

  private int report() {
    if (!jmhArguments.isEmpty()) {
      return fail("--report takes result files and --out/--baseline/--x-axis, not " + String.join(" ", jmhArguments));
    }
    if (quick || profile != null || list) {
      return fail("--report cannot be combined with --quick, --profile or --list");
    }
    try {
      ReportSettings settings = new ReportSettings(baselines, xAxes, BenchMain.class.getClassLoader());
      List<Path> inputs = report.isEmpty() ? storedResults() : report;
      Path directory = outOption == null ? REPORT : outOption;
      ReportGenerator.Output written = ReportGenerator.generate(inputs, directory, settings);
      out.println("memwall bench: wrote " + written.markdown() + " and " + written.charts().size() + " charts from "
          + inputs.size() + (inputs.size() == 1 ? " result file" : " result files"));
      return 0;
    } catch (ReportException | IllegalArgumentException e) {
      return fail(e.getMessage());
    }
  }

  private static List<Path> storedResults() throws ReportException {
    if (!Files.isDirectory(RESULTS)) {
      throw new ReportException("no result files given and no " + RESULTS + "/ directory here; "
          + "run benchmarks first or name JMH JSON files after --report");
    }
    try (Stream<Path> files = Files.list(RESULTS)) {
      List<Path> json = files.filter(f -> isStoredResult(f.getFileName().toString()) && Files.isRegularFile(f))
          .sorted().toList();
      if (json.isEmpty()) {
        throw new ReportException("no result files given and no *.json in " + RESULTS + "/ (quick-*.json smoke runs "
            + "are left out unless named)");
      }
      return json;
    } catch (IOException e) {
      throw new ReportException("cannot list " + RESULTS + "/: " + e.getMessage(), e);
    }
  }

  /** Whether the default report includes this file of bench-results/: JSON, but not a --quick smoke run. */
  static boolean isStoredResult(String fileName) {
    return fileName.endsWith(".json") && !fileName.startsWith(JmhRun.QUICK_PREFIX);
  }

  private int benchmark() {
    CommandLineOptions user;
    try {
      user = new CommandLineOptions(jmhArguments.toArray(String[]::new));
    } catch (CommandLineOptionException e) {
      return fail("bad JMH option: " + e.getMessage().strip());
    }
    try {
      if (list || user.shouldList()) {
        new Runner(user).list();
        return 0;
      }
      if (user.shouldListWithParams()) {
        new Runner(user).listWithParams(user);
        return 0;
      }
      if (user.shouldListProfilers()) {
        user.listProfilers();
        return 0;
      }
      if (user.shouldListResultFormats()) {
        user.listResultFormats();
        return 0;
      }
      if (user.shouldHelp()) {
        user.showHelp();
        return 0;
      }
    } catch (IOException e) {
      return fail("cannot show JMH's help: " + e.getMessage());
    }

    Optional<JmhRun.Profile> profiling = Optional.empty();
    if (profile != null) {
      ProfilerEvents.Plan plan;
      try {
        plan = ProfilerEvents.plan(profile, counters.get());
      } catch (IllegalArgumentException e) {
        return fail(e.getMessage());
      }
      Path library;
      try {
        library = AsyncProfilerLibrary.extract();
      } catch (IOException | UnsupportedOperationException e) {
        return fail("cannot profile: " + e.getMessage());
      }
      plan.notice().ifPresent(line -> err.println("memwall bench: " + line));
      profiling = Optional.of(new JmhRun.Profile(library, plan.event(), RESULTS.resolve("profiles")));
    }

    RunDefaults defaults = quick ? RunDefaults.QUICK : RunDefaults.FULL;
    JmhRun.Plan plan = JmhRun.plan(user, defaults, profiling, RESULTS, LocalDateTime.now());
    try {
      Path resultDirectory = plan.resultFile().map(Path::toAbsolutePath).map(Path::getParent).orElse(null);
      if (resultDirectory != null) {
        Files.createDirectories(resultDirectory);
      }
      if (profiling.isPresent()) {
        Files.createDirectories(profiling.get().directory());
      }
    } catch (IOException e) {
      return fail("cannot create a directory for the results: " + e);
    }
    out.println("memwall bench: " + (quick ? "quick run, " : "") + "defaults " + defaults.describe()
        + " (JMH options given win)" + plan.resultFile().map(f -> "; results to " + f).orElse("")
        + profiling.map(p -> "; flame graphs (" + p.event() + ") to " + p.directory() + "/").orElse(""));
    try {
      new Runner(plan.options()).run();
    } catch (NoBenchmarksException e) {
      return failRun("no benchmark matches " + String.join(" ", user.getIncludes()) + "; './memwall bench -l' lists them");
    } catch (ProfilersFailedException e) {
      return failRun("the profiler failed: " + messages(e));
    } catch (RunnerException e) {
      return failRun("the run failed: " + messages(e));
    }
    plan.resultFile().ifPresent(f -> out.println("memwall bench: results in " + f
        + "; './memwall bench --report' charts them into " + REPORT + "/"));
    return 0;
  }

  private static String messages(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !text.toString().contains(t.getMessage().strip())) {
        text.append(text.isEmpty() ? "" : ": ").append(t.getMessage().strip().replace('\n', ' '));
      }
    }
    return text.toString();
  }

  private int fail(String message) {
    err.println("memwall bench: " + message.strip().replace('\n', ' '));
    return 2;
  }

  private int failRun(String message) {
    err.println("memwall bench: " + message);
    return 1;
  }
}
