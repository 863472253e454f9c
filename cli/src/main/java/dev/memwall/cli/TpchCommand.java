package dev.memwall.cli;

import dev.memwall.cli.report.RunStamp;
import dev.memwall.cli.report.TpchReport;
import dev.memwall.hw.CalibratedProfile;
import dev.memwall.hw.CounterReading;
import dev.memwall.hw.HardwareCounters;
import dev.memwall.hw.ProfilerEvents;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.sql.Memwall;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.data.TpchManifest;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.run.DuckDbEngine;
import dev.memwall.tpch.run.EngineProcess;
import dev.memwall.tpch.run.MemwallEngine;
import dev.memwall.tpch.run.ParquetCopy;
import dev.memwall.tpch.run.QueryEngine;
import dev.memwall.tpch.run.QueryEngineProvider;
import dev.memwall.tpch.run.Rounds;
import dev.memwall.tpch.run.TpchRunner.QueryReport;
import dev.memwall.tpch.run.TpchRunner.Verification;
import dev.memwall.tpch.run.TpchRunner;
import dev.memwall.tpch.verify.DuckDbOracle;
import dev.memwall.tpch.verify.OfficialAnswers;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code memwall tpch}: generates (once) or maps the TPC-H data of a scale factor, runs the chosen
 * queries on memwall (or on Spark with memwall's extension), times them, verifies the results and
 * optionally times DuckDB or Spark alone on the same data.
 * See {@link MemwallCli} for exit codes.
 */
@Command(name = "tpch", mixinStandardHelpOptions = true,
    description = "Run TPC-H queries on memwall: time them, verify their results, compare with DuckDB.")
final class TpchCommand implements Callable<Integer> {
  /** The {@code --compare} key of Comet, whose engine runs on a class path of its own. */
  static final String COMET = "comet";
  /** The system property that holds the comet engine's class path. */
  static final String COMET_CLASS_PATH = "memwall.comet.classpath";
  private final IntFunction<TpchQuery> queries;
  private final Supplier<List<Integer>> implemented;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--sf", defaultValue = "1", paramLabel = "SF", description = "Scale factor (default ${DEFAULT-VALUE}).")
  double scaleFactor;

  @Option(names = "--queries", split = ",", paramLabel = "N",
      description = "Queries to run, e.g. 1,6 (default: all implemented).")
  List<Integer> queryNumbers;

  @Option(names = "--runs", defaultValue = "5", paramLabel = "N", description = "Timed runs per query (default ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--warmup", defaultValue = "3", paramLabel = "N",
      description = "Untimed warm-up runs per query, which let the JIT compile the kernels (default ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--warmup-scope", defaultValue = "suite", paramLabel = "suite|query",
      description = "suite: every query's warm-up runs before any timed run, so the times are the steady state of "
          + "a process serving the whole mix; query: each query's warm-ups right before its timed runs, which "
          + "then also pay the JIT recompiling what the queries before it compiled (default ${DEFAULT-VALUE}).")
  String warmupScope;

  @Option(names = "--threads", paramLabel = "N",
      description = "Threads for memwall and DuckDB (default: all cores; at most 4 per core, more is cut with a warning).")
  Integer threads;

  @Mixin CacheDirectoryOption cacheDirectory;

  @Option(names = "--verify", paramLabel = "answers|duckdb|none",
      description = "Check results against the official SF 1 answers, DuckDB, or not at all "
          + "(default: answers at SF 1 when the answers directory exists, else duckdb).")
  String verify;

  @Option(names = "--seed", paramLabel = "N",
      description = "Substitute random query parameters drawn from seed N by the specification's rules "
          + "(default: the validation parameters); results are then verified against DuckDB.")
  Long seed;

  @Option(names = "--engine", paramLabel = "memwall|spark", defaultValue = "memwall",
      description = "The engine timed and verified: memwall's own plans, or Spark SQL over the memwall data source "
          + "with memwall's Spark extension (module tpch-spark) (default ${DEFAULT-VALUE}).")
  String engine;

  @Option(names = "--plans", paramLabel = "sql|hand",
      description = "memwall's plans: each query's plan taken from its SQL text through engine-sql, planning "
          + "counted in its times, as DuckDB plans its SQL (default); or the hand-written plans the SQL path "
          + "is measured against. A query the SQL path refuses is reported refused with why, not run.")
  String plans;

  @Option(names = "--compare", paramLabel = "duckdb|spark|comet|duckdb-in-process|spark-in-process",
      description = "Also time DuckDB, or Spark SQL without memwall's extension (Spark alone, reading the same "
          + "files through the memwall data source), or Spark 4.1 with Apache DataFusion Comet (over a Parquet copy "
          + "of the data, made once beside it), on the same data and threads, each in a process of its own "
          + "(DuckDB loaded from the same files into its native tables), so that neither engine's threads run "
          + "while the other is timed; duckdb-in-process and spark-in-process run it inside this JVM, as earlier "
          + "reports did, and so does spark with a --master that is not local (one application on the cluster).")
  String compare;

  @Option(names = "--rounds", defaultValue = "1", paramLabel = "N",
      description = "Time the whole set of queries N times, the engine and the compared engine alternating query "
          + "by query; reports the median ratio and its spread over the rounds (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--master", paramLabel = "URL",
      description = "Spark's master for the spark engines (default: local[THREADS]).")
  String master;

  @Option(names = "--answers", paramLabel = "DIR",
      description = "Official answers directory (default: shared/tpch/answers-sf1 found above the working directory).")
  Path answersDirectory;

  @Option(names = "--budget", paramLabel = "SIZE", description = "Off-heap memory budget, e.g. 512m or 4g (default: unbounded).")
  String budget;

  @Option(names = "--report", paramLabel = "DIR", defaultValue = "tpch-report",
      description = "Where to write the table as Markdown and CSV and the chart of median times (default: ${DEFAULT-VALUE}).")
  Path reportDirectory;

  @Option(names = "--profile", paramLabel = "EVENT",
      description = "After timing, run each query again under async-profiler (flame graph per query into the report "
          + "directory's profiles/) and hardware counters with seed 003's stall breakdown where the machine has "
          + "counters. EVENT: cpu, wall, itimer, or a perf event such as cache-misses (CPU time where there are no "
          + "hardware counters).")
  String profile;

  @Option(names = {"-q", "--quiet"}, description = "No progress bar while generating data.")
  boolean quiet;

  TpchCommand(IntFunction<TpchQuery> queries, Supplier<List<Integer>> implemented) {
    this.queries = queries;
    this.implemented = implemented;
  }

  @Override
  public Integer call() throws Exception {
    TpchDataGenerator.checkScaleFactor(scaleFactor);
    int threadCount = ThreadCap.threads(threads, Runtime.getRuntime().availableProcessors(), spec.commandLine().getErr());
    String engineKey = parseEngine(engine);
    String comparedKey = parseCompare(compare);
    if (plans != null && !engineKey.equals("memwall")) {
      throw new IllegalArgumentException("--plans is memwall's: not with --engine " + engineKey);
    }
    boolean sqlPlans = engineKey.equals("memwall") && parsePlans(plans);
    // found before any data is generated or loaded, so that a missing engine fails at once
    QueryEngineProvider timedProvider = engineKey.equals("memwall") ? null : QueryEngineProvider.find(engineKey);
    QueryEngineProvider comparedProvider = comparedKey == null || comparedKey.startsWith("duckdb")
        || COMET.equals(comparedKey) ? null : QueryEngineProvider.find(comparedKey.replace("-in-process", ""));
    String cometClassPath = COMET.equals(comparedKey) ? cometClassPath(master) : null;
    if (master != null && timedProvider == null && comparedProvider == null) {
      throw new IllegalArgumentException("--master is Spark's: it needs --engine spark or --compare spark");
    }
    Optional<Path> answersDir = answersDirectory != null ? Optional.of(answersDirectory) : OfficialAnswers.locate();
    Verification verification = verification(verify, scaleFactor, answersDir, seed != null);
    TpchRunner.Options options = new TpchRunner.Options(warmup, runs, threadCount, verification,
        seed == null ? OptionalLong.empty() : OptionalLong.of(seed), parseWarmUpScope(warmupScope), rounds);
    boolean duckDbChild = !"duckdb-in-process".equals(comparedKey)
        && (options.verification() == Verification.DUCKDB || "duckdb".equals(comparedKey));
    if (sqlPlans && !duckDbChild) {
      Memwall.preload(); // the SQL front end's shared state loads while the data opens
    }
    List<Integer> numbers = queryNumbers == null ? implemented.get() : queryNumbers;
    if (numbers.isEmpty()) {
      throw new IllegalArgumentException("no TPC-H query is implemented yet; nothing to run");
    }
    List<TpchQuery> selected = new ArrayList<>();
    for (int number : numbers) {
      selected.add(queries.apply(number));
    }
    OfficialAnswers answers = verification == Verification.ANSWERS ? new OfficialAnswers(answersDir.orElseThrow()) : null;
    Path cache = cacheDirectory.directory();
    long budgetBytes = budget == null ? Long.MAX_VALUE : parseSize(budget);
    MemoryBudget memoryBudget = budget == null ? MemoryBudget.unbounded("memwall tpch") : MemoryBudget.of("memwall tpch", budgetBytes);

    MachineProfile machine = CalibratedProfile.install(spec.commandLine().getErr());
    TpchRunner.Profiling profiling = null;
    if (profile != null) {
      ProfilerEvents.Plan plan = ProfilerEvents.plan(profile, HardwareCounters.availability());
      plan.notice().ifPresent(spec.commandLine().getErr()::println);
      profiling = new TpchRunner.Profiling(plan, reportDirectory.resolve("profiles"), machine);
    }
    List<QueryReport> reports;
    List<TpchRunner.QueryProfile> profiles;
    String engineName;
    String comparedName;
    Path dataDirectory = TpchDataGenerator.dataDirectory(cache, scaleFactor);
    try (EngineMemory memory = EngineMemory.create(memoryBudget)) {
      try (TpchDatabase db = TpchDatabase.load(cache, scaleFactor, new TpchDataGenerator(threadCount, quiet), memory);
          EngineProcess duckDbProcess = duckDbChild ? EngineProcess.duckDb(cache, scaleFactor, threadCount) : null) {
        // with a DuckDB child, the front end starts loading only once the child has loaded its tables:
        // started before, it would be ready in the child's time, and memwall's first runs would not
        // pay its cold start as a fresh process of a user's does
        if (sqlPlans && duckDbChild) {
          Memwall.preload(); // without a child it started above
        }
        try (DuckDbOracle oracle = "duckdb-in-process".equals(comparedKey) ? DuckDbOracle.of(db, threadCount, memory) : null;
            QueryEngine duckdb = oracle != null ? new DuckDbEngine(oracle) : duckDbProcess;
            QueryEngine timed = timedProvider != null ? timedProvider.open(dataDirectory, threadCount, true, sparkSettings())
                : new MemwallEngine(db, memory, threadCount, sqlPlans);
            QueryEngine other = cometClassPath != null ? comet(dataDirectory, db, memory, threadCount, cometClassPath)
                : comparedProvider == null ? (comparedKey == null ? null : duckdb)
                : comparedInThisJvm(comparedKey, master)
                    ? comparedProvider.open(dataDirectory, threadCount, false, sparkSettings())
                    : EngineProcess.provider(comparedProvider.name(), dataDirectory, threadCount, false, sparkSettings())) {
          TpchRunner runner = new TpchRunner(timed, scaleFactor, options, answers, duckdb, other);
          if (profiling != null) {
            runner.profiling(profiling);
          }
          reports = runner.runAll(selected);
          profiles = runner.profiles();
          engineName = timed.name();
          comparedName = other == null ? null : other.name();
        }
      }
    }
    String title = print(reports, options, dataDirectory, engineName, comparedName);
    String scaleFactorName = TpchManifest.directoryName(scaleFactor).substring(2);
    List<Path> written;
    try {
      written = new TpchReport(title, TpchReport.baseName(
          engineKey.equals("memwall") && !sqlPlans ? "memwall-hand" : engineKey, scaleFactorName, threadCount), engineName,
          comparedName, reports, RunStamp.now()).write(reportDirectory, spec.commandLine().getErr()::println);
    } catch (IOException e) {
      throw new IOException("cannot write the report into " + reportDirectory + ": " + e, e);
    }
    spec.commandLine().getOut().println("report: " + String.join(", ", written.stream().map(Path::toString).toList()));
    printProfiles(profiles);
    spec.commandLine().getOut().flush();
    return QueryFailures.exitCode(reports, spec.commandLine().getErr());
  }

  /** Per query its flame graph, and its counts and stall breakdown where counters exist (else one line for all). */
  private void printProfiles(List<TpchRunner.QueryProfile> profiles) {
    PrintWriter out = spec.commandLine().getOut();
    boolean counted = false;
    for (TpchRunner.QueryProfile queryProfile : profiles) {
      out.println("Q" + queryProfile.query() + " flame graph: " + queryProfile.flameGraph());
      if (queryProfile.counters() instanceof CounterReading.Available) {
        counted = true;
        out.println("  " + queryProfile.counters().describe());
        out.println(queryProfile.stallBreakdown().indent(2).stripTrailing());
      }
    }
    if (!counted && !profiles.isEmpty()) {
      out.println(profiles.getFirst().stallBreakdown());
    }
    out.flush();
  }

  /**
   * The class path of module tpch-comet, where the {@code comet} engine lives (Spark 4.1 with Comet, which
   * cannot share this JVM's class path): {@value #COMET_CLASS_PATH}, which {@code ./memwall} sets after
   * building the module.
   */
  static String cometClassPath(String master) {
    if (master != null) {
      throw new IllegalArgumentException("--compare comet runs Comet on this machine's cores: not with --master");
    }
    String classPath = System.getProperty(COMET_CLASS_PATH);
    if (classPath == null || classPath.isBlank()) {
      throw new IllegalArgumentException("--compare comet needs module tpch-comet's class path in the system property "
          + COMET_CLASS_PATH + ", which ./memwall sets when a command names comet (it builds the module with -Pcomet)");
    }
    return classPath;
  }

  /** Comet in a child on {@code classPath}, over the Parquet copy of the data set (made first if missing). */
  private static QueryEngine comet(Path dataDirectory, TpchDatabase db, EngineMemory memory, int threads,
      String classPath) throws IOException, SQLException {
    ParquetCopy.ensure(dataDirectory, db, memory, threads);
    return EngineProcess.provider(COMET, dataDirectory, threads, false, Map.of(), classPath);
  }

  private Map<String, String> sparkSettings() {
    return master == null ? Map.of() : Map.of("master", master);
  }

  /** Prints the table; returns its title line. */
  private String print(List<QueryReport> reports, TpchRunner.Options options, Path dataDirectory, String engineName,
      String comparedName) {
    PrintWriter out = spec.commandLine().getOut();
    boolean compared = comparedName != null;
    Verification verification = options.verification();
    int threadCount = options.threads();
    out.println("data: " + dataDirectory);
    if (options.seed().isPresent()) {
      out.println("parameters from seed " + options.seed().getAsLong() + ":");
      for (QueryReport report : reports) {
        out.println("  " + options.parameters(report.query(), scaleFactor));
      }
    }
    String title = String.format(Locale.ROOT, "TPC-H SF %s on %s%s, %d thread%s, %d warm-up%s + %d timed runs%s, %s%s",
        TpchManifest.directoryName(scaleFactor).substring(2), engineName, compared ? " and " + comparedName : "",
        threadCount, threadCount == 1 ? "" : "s",
        warmup, options.warmUpScope() == TpchRunner.WarmUp.SUITE ? " (all queries first)" : "", runs,
        options.rounds() == 1 ? "" : " in each of " + options.rounds() + " rounds", switch (verification) {
          case ANSWERS -> "verified against the official answers";
          case DUCKDB -> "verified against DuckDB";
          case NONE -> "not verified";
        }, options.seed().isPresent() ? ", parameters from seed " + options.seed().getAsLong() : "");
    out.println(title);
    boolean planned = reports.stream().anyMatch(report -> report.planningNanos() >= 0);
    String header = String.format(Locale.ROOT, "%-6s %10s %10s %10s%s %10s  %-8s", "query", "rows", "best ms", "median ms",
        planned ? String.format(Locale.ROOT, " %8s", "plan ms") : "", "first ms", "verified");
    if (compared) {
      header += String.format(Locale.ROOT, " %14s %16s %15s %7s", "compared best", "compared median",
          "compared first", "ratio");
      if (options.rounds() > 1) {
        header += String.format(Locale.ROOT, " %11s", "ratio range");
      }
    }
    out.println(header);
    long best = 0;
    long median = 0;
    long first = 0;
    long planning = 0;
    long comparedBest = 0;
    long comparedMedian = 0;
    long comparedFirst = 0;
    List<String> failures = new ArrayList<>();
    List<String> refusals = new ArrayList<>();
    for (QueryReport report : reports) {
      if (report.failed()) {
        out.println(String.format(Locale.ROOT, "%-6s %10s %10s %10s%s %10s  %-8s", "Q" + report.query(), "-", "-", "-",
            planned ? String.format(Locale.ROOT, " %8s", "-") : "", "-", report.refused() ? "REFUSED" : "FAILED"));
        (report.refused() ? refusals : failures).add("Q" + report.query() + (report.refused() ? " REFUSED, " : " FAILED: ")
            + report.failure());
        continue;
      }
      String verified = report.verified() == null ? "-" : report.verified() ? "yes" : "NO";
      String line = String.format(Locale.ROOT, "%-6s %10d %10.1f %10.1f%s %10.1f  %-8s", "Q" + report.query(),
          report.rows(), report.bestNanos() / 1e6, report.medianNanos() / 1e6, planned ? planCell(report.planningNanos()) : "",
          report.firstNanos() / 1e6, verified);
      if (compared) {
        line += String.format(Locale.ROOT, " %14.1f %16.1f %15.1f %7.2f", report.comparedBestNanos() / 1e6,
            report.comparedMedianNanos() / 1e6, report.comparedFirstNanos() / 1e6, report.ratio());
        if (options.rounds() > 1) {
          line += " " + Rounds.range(report.roundRatios());
        }
        comparedBest += report.comparedBestNanos();
        comparedMedian += report.comparedMedianNanos();
        comparedFirst += report.comparedFirstNanos();
      }
      out.println(line);
      best += report.bestNanos();
      median += report.medianNanos();
      planning += Math.max(0, report.planningNanos());
      first += report.firstNanos();
      if (Boolean.FALSE.equals(report.verified())) {
        failures.add("Q" + report.query() + " NOT verified: " + report.reason());
      }
    }
    String total = String.format(Locale.ROOT, "%-6s %10s %10.1f %10.1f%s %10.1f  %-8s", "total", "", best / 1e6,
        median / 1e6, planned ? planCell(planning) : "", first / 1e6, failures.isEmpty() ? "" : failures.size() + " NO");
    List<Double> totals = Rounds.totalRatios(reports);
    if (compared) {
      total += String.format(Locale.ROOT, " %14.1f %16.1f %15.1f %7.2f", comparedBest / 1e6, comparedMedian / 1e6,
          comparedFirst / 1e6, Rounds.median(totals));
      if (options.rounds() > 1) {
        total += " " + Rounds.range(totals);
      }
    }
    out.println(total);
    out.println("first = the query's first run in this process, JIT compilation included");
    if (planned) {
      out.println("plan = the median time the timed runs spent planning (SQL text to memwall's plan), included in the median");
    }
    if (compared) {
      out.println("compared = " + comparedName + "; ratio = " + engineName + " median / " + comparedName
          + " median (below 1: " + engineName + " faster)" + (options.rounds() == 1 ? ""
              : ", the median of the rounds' ratios; total ratio by round: " + Rounds.list(totals)));
    }
    failures.forEach(out::println);
    refusals.forEach(out::println);
    out.flush();
    return title;
  }

  /** A planning time in the console table's {@code plan ms} column: milliseconds, or - when the engine gave none. */
  private static String planCell(long nanos) {
    return nanos < 0 ? String.format(Locale.ROOT, " %8s", "-") : String.format(Locale.ROOT, " %8.2f", nanos / 1e6);
  }

  /** The engine {@code --engine} names: {@code memwall} or {@code spark}. */
  static String parseEngine(String engine) {
    String key = engine.toLowerCase(Locale.ROOT);
    if (!key.equals("memwall") && !key.equals("spark")) {
      throw new IllegalArgumentException("--engine is 'memwall' or 'spark', not '" + engine + "'");
    }
    return key;
  }

  /**
   * Whether {@code --plans} asks for plans from SQL ({@code sql}, or null: not given) rather than the
   * hand-written ones ({@code hand}).
   */
  static boolean parsePlans(String plans) {
    return plans == null || switch (plans.toLowerCase(Locale.ROOT)) {
      case "hand" -> false;
      case "sql" -> true;
      default -> throw new IllegalArgumentException("--plans is 'hand' or 'sql', not '" + plans + "'");
    };
  }

  /**
   * Whether the compared engine of {@code --compare KEY} runs in this JVM rather than a child: when
   * asked ({@code *-in-process}), and for Spark on a cluster's {@code master}, where a second
   * application in a child would wait for executors the first one holds (a standalone master gives
   * an application every free core); the work runs in the executors' JVMs there anyway.
   */
  static boolean comparedInThisJvm(String comparedKey, String master) {
    return comparedKey.endsWith("-in-process") || master != null && !master.startsWith("local");
  }

  /** The engine {@code --compare} names ({@code duckdb}, {@code duckdb-in-process} or {@code spark}), or null for none. */
  static String parseCompare(String compare) {
    if (compare == null) {
      return null;
    }
    String key = compare.toLowerCase(Locale.ROOT);
    if (!List.of("duckdb", "duckdb-in-process", "spark", "spark-in-process", COMET).contains(key)) {
      throw new IllegalArgumentException("--compare is 'duckdb', 'spark', 'comet', 'duckdb-in-process' or "
          + "'spark-in-process', not '" + compare + "'");
    }
    return key;
  }

  static TpchRunner.WarmUp parseWarmUpScope(String scope) {
    return switch (scope.toLowerCase(Locale.ROOT)) {
      case "suite" -> TpchRunner.WarmUp.SUITE;
      case "query" -> TpchRunner.WarmUp.QUERY;
      default -> throw new IllegalArgumentException("--warmup-scope is 'suite' or 'query', not '" + scope + "'");
    };
  }

  static Verification verification(String verify, double scaleFactor, Optional<Path> answersDir, boolean seeded) {
    if (verify == null) {
      return scaleFactor == 1 && answersDir.isPresent() && !seeded ? Verification.ANSWERS : Verification.DUCKDB;
    }
    Verification chosen = switch (verify.toLowerCase(Locale.ROOT)) {
      case "answers" -> Verification.ANSWERS;
      case "duckdb" -> Verification.DUCKDB;
      case "none" -> Verification.NONE;
      default -> throw new IllegalArgumentException("--verify takes answers, duckdb or none, not '" + verify + "'");
    };
    if (chosen == Verification.ANSWERS && seeded) {
      throw new IllegalArgumentException("the official answers hold only for the validation parameters; use --verify duckdb with --seed");
    }
    if (chosen == Verification.ANSWERS && scaleFactor != 1) {
      throw new IllegalArgumentException("the official answers are for SF 1 only; use --verify duckdb at SF " + scaleFactor);
    }
    if (chosen == Verification.ANSWERS && answersDir.isEmpty()) {
      throw new IllegalArgumentException("official answers directory not found (looked for "
          + OfficialAnswers.RELATIVE + " above " + Path.of("").toAbsolutePath() + "); pass --answers DIR");
    }
    return chosen;
  }

  /** Bytes of a size like {@code 512m}, {@code 4g}, {@code 65536} or {@code 64k}. */
  static long parseSize(String size) {
    String text = size.strip().toLowerCase(Locale.ROOT);
    long unit = 1;
    if (!text.isEmpty() && "kmgt".indexOf(text.charAt(text.length() - 1)) >= 0) {
      unit = 1L << (10 * ("kmgt".indexOf(text.charAt(text.length() - 1)) + 1));
      text = text.substring(0, text.length() - 1);
    }
    try {
      long value = Long.parseLong(text);
      if (value <= 0) {
        throw new NumberFormatException();
      }
      return Math.multiplyExact(value, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("--budget takes a positive size like 512m or 4g, not '" + size + "'");
    }
  }
}
