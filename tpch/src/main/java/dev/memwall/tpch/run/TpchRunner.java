package dev.memwall.tpch.run;

import dev.memwall.hw.CounterReading;
import dev.memwall.hw.HardwareCounters;
import dev.memwall.hw.HwEvent;
import dev.memwall.hw.ProfilerEvents;
import dev.memwall.hw.SamplingProfiler;
import dev.memwall.hw.StallBreakdown;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.spill.SpillException;
import dev.memwall.join.common.JoinSpillException;
import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.verify.OfficialAnswers;
import dev.memwall.tpch.verify.ResultComparator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Runs TPC-H queries on an engine (memwall's plans, or Spark, ...: {@link QueryEngine}): warm-up runs,
 * timed runs, verification of the result against the official answers or DuckDB, and optionally a
 * second engine's time on the same data with the same thread count. The second engine runs only once
 * this JVM's JIT compilers are idle ({@link CompilerThreads}), so that the first engine's compiles
 * neither take cores from its runs nor finish in time that is not the first engine's; the first
 * engine runs only once the second's process is idle ({@link QueryEngine#awaitIdle}).
 *
 * <p>Ownership: every result is closed before {@link #run} returns; the engines stay the caller's.
 * Thread safety: not thread-safe. Bad input: options are checked by {@link Options}'s constructor
 * ({@link IllegalArgumentException}); answers or an oracle needed but absent give
 * {@link IllegalArgumentException}.
 */
public final class TpchRunner {
  /** Against what a result is checked. */
  public enum Verification {
    /** The official SF 1 answers ({@link OfficialAnswers}); only meaningful at SF 1. */
    ANSWERS,
    /** DuckDB's result of the same SQL on the same data. */
    DUCKDB,
    /** No check. */
    NONE
  }

  /** When {@link #runAll} makes the warm-up runs. */
  public enum WarmUp {
    /**
     * Every query's warm-up runs (the engine's, and the compared engine's) before the first timed run
     * of any: the timed runs see the steady state of a process serving the whole mix, the JIT done
     * compiling the kernels for every query's types. Times do not depend on the order of the queries.
     * The warm-ups go pass after pass over the queries, the engine's before the compared engine's,
     * so each engine's first runs are those of a fresh process running the queries one after another.
     */
    SUITE,
    /**
     * Each query's warm-up runs right before its own timed runs. A query that brings new types to
     * kernels the queries before it compiled has them recompiled during its timed runs, on the
     * cores the query runs on; its times then depend on the queries before it.
     */
    QUERY
  }

  /**
   * @param warmup untimed runs per query before its timed ones, at least 0
   * @param runs timed runs, at least 1
   * @param threads threads the engines may use, at least 1
   * @param verification what results are checked against
   * @param seed random substitution parameters from this seed ({@link TpchParameters#random}); empty
   *     for the specification's validation parameters
   * @param warmUpScope when {@link #runAll} makes the warm-up runs
   * @param rounds how many times {@link #runAll} times the whole set of queries, at least 1: each round
   *     times every query on the engine and then on the compared engine, so that the two alternate
   *     and a noisy stretch of time shows as one round's outlier instead of deciding the comparison
   */
  public record Options(int warmup, int runs, int threads, Verification verification, OptionalLong seed,
      WarmUp warmUpScope, int rounds) {
    /** Options with the validation parameters, warmed up as a suite, one round. */
    public Options(int warmup, int runs, int threads, Verification verification) {
      this(warmup, runs, threads, verification, OptionalLong.empty(), WarmUp.SUITE, 1);
    }

    public Options {
      Objects.requireNonNull(warmUpScope, "warmUpScope");
      if (warmup < 0) {
        throw new IllegalArgumentException("warm-up runs must be 0 or more, got " + warmup);
      }
      if (runs < 1) {
        throw new IllegalArgumentException("runs must be at least 1, got " + runs);
      }
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be at least 1, got " + threads);
      }
      if (rounds < 1) {
        throw new IllegalArgumentException("rounds must be at least 1, got " + rounds);
      }
      if (seed.isPresent() && verification == Verification.ANSWERS) {
        throw new IllegalArgumentException("the official answers hold only for the validation parameters, not for --seed");
      }
    }

    /** The parameters of {@code query} at {@code scaleFactor}: random from the seed, else the validation values. */
    public QueryParameters parameters(int query, double scaleFactor) {
      return seed.isPresent() ? TpchParameters.random(query, scaleFactor, seed.getAsLong())
          : TpchParameters.validation(query, scaleFactor);
    }
  }

  /**
   * One query's outcome, over all rounds.
   *
   * @param rows rows of the engine's result
   * @param bestNanos the engine's best time over every timed run of every round
   * @param medianNanos the median of the engine's round medians
   * @param firstNanos the query's first run in this process (its first warm-up, or its first timed
   *     run without warm-ups): what a cold query costs, JIT compilation and class loading included
   * @param verified true or false, null when not verified
   * @param reason "ok", or why verification failed, or "not verified"
   * @param comparedBestNanos the compared engine's best time, -1 when none was compared
   * @param comparedMedianNanos the median of the compared engine's round medians, -1 when none was
   *     compared
   * @param comparedFirstNanos the compared engine's first run of the query, -1 when none was compared
   * @param roundMedians the engine's median time in each round, in order
   * @param comparedRoundMedians the compared engine's, empty when none was compared
   * @param roundPlanningMedians the engine's median planning time in each round, in order (the part of
   *     its times it spent planning, {@link QueryEngine.Result#planningNanos}); empty when the engine
   *     does not tell planning apart
   * @param failure null when the query ran; else why it could not (its memory budget too small, its
   *     spill disk full), and then rows and times are 0 and {@code verified} is null
   */
  public record QueryReport(int query, long rows, long bestNanos, long medianNanos, long firstNanos, Boolean verified,
      String reason, long comparedBestNanos, long comparedMedianNanos, long comparedFirstNanos,
      List<Long> roundMedians, List<Long> comparedRoundMedians, List<Long> roundPlanningMedians, String failure) {
    public QueryReport {
      roundMedians = List.copyOf(roundMedians);
      comparedRoundMedians = List.copyOf(comparedRoundMedians);
      roundPlanningMedians = List.copyOf(roundPlanningMedians);
    }

    /** The report of a query that could not run, and why. */
    public static QueryReport failed(int query, String failure) {
      return new QueryReport(query, 0, 0, 0, 0, null, "failed: " + failure, -1, -1, -1, List.of(), List.of(), List.of(),
          failure);
    }

    /**
     * The engine's planning time: the median of its round medians (for an even count the lower middle
     * one), -1 when the engine does not tell planning apart.
     */
    public long planningNanos() {
      return roundPlanningMedians.isEmpty() ? -1 : Rounds.lowerMedian(roundPlanningMedians);
    }

    /** Whether the query could not run (see {@link #failure}). */
    public boolean failed() {
      return failure != null;
    }

    /** Whether the query could not run because the engine refused it ({@link QueryRefusedException}). */
    public boolean refused() {
      return failure != null && failure.startsWith(QueryRefusedException.PREFIX);
    }

    /**
     * The median over the rounds of the engine's median time over the compared engine's, NaN when none
     * was compared.
     */
    public double ratio() {
      return Rounds.median(roundRatios());
    }

    /** Each round's ratio of the engine's median time to the compared engine's; empty when none was compared. */
    public List<Double> roundRatios() {
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < comparedRoundMedians.size(); i++) {
        ratios.add((double) roundMedians.get(i) / comparedRoundMedians.get(i));
      }
      return ratios;
    }
  }

  /**
   * What {@code --profile} records per query, in extra runs after the timed ones (so the times stay
   * unprofiled).
   *
   * @param plan the event to sample (see {@link ProfilerEvents})
   * @param directory where the flame graphs go, {@code q<N>-<event>.html}
   * @param machine the profile whose penalties the stall breakdown charges
   */
  public record Profiling(ProfilerEvents.Plan plan, Path directory, MachineProfile machine) {}

  /**
   * One query's profile.
   *
   * @param flameGraph async-profiler's flame graph of the profiled runs
   * @param counters the hardware events the calling thread counted over those runs, or why none
   * @param stallBreakdown seed 003's breakdown of those counts, or one line saying it is unavailable
   */
  public record QueryProfile(int query, Path flameGraph, CounterReading counters, String stallBreakdown) {}

  private final QueryEngine engine;
  private final double scaleFactor;
  private final Options options;
  private final OfficialAnswers answers;
  private final QueryEngine oracle;
  private final QueryEngine compared;
  private final List<QueryProfile> profiles = new ArrayList<>();
  /** Each query's first run in this process, by query number. */
  private final Map<Integer, Long> firstRunNanos = new HashMap<>();
  /** The compared engine's first run of each query, by query number. */
  private final Map<Integer, Long> comparedFirstRunNanos = new HashMap<>();
  private Profiling profiling;

  /**
   * @param engine the engine timed and verified
   * @param scaleFactor the data set's, for the queries' parameters
   * @param answers the official answers, required for {@link Verification#ANSWERS}, else may be null
   * @param oracle DuckDB on the same data, required for {@link Verification#DUCKDB}, else may be null
   * @param compared an engine timed beside {@code engine} on the same queries, or null
   */
  public TpchRunner(QueryEngine engine, double scaleFactor, Options options, OfficialAnswers answers,
      QueryEngine oracle, QueryEngine compared) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.scaleFactor = scaleFactor;
    this.options = options;
    this.answers = answers;
    this.oracle = oracle;
    this.compared = compared;
    if (options.verification() == Verification.ANSWERS && answers == null) {
      throw new IllegalArgumentException("verification against the official answers needs the answers directory");
    }
    if (options.verification() == Verification.DUCKDB && oracle == null) {
      throw new IllegalArgumentException("DuckDB verification needs a DuckDB oracle");
    }
  }

  /** Profiles every query after timing it; see {@link Profiling}. */
  public TpchRunner profiling(Profiling profiling) {
    this.profiling = profiling;
    return this;
  }

  /** The profiles recorded so far, in the order the queries ran. */
  public List<QueryProfile> profiles() {
    return List.copyOf(profiles);
  }

  /** Warms up, runs, times and verifies {@code query}: one round. */
  public QueryReport run(TpchQuery query) throws SQLException {
    warmUp(query);
    return measure(query, true);
  }

  /** The untimed runs of {@code query}: the engine's, and the compared engine's. */
  private void warmUp(TpchQuery query) throws SQLException {
    awaitTurn(engine);
    for (int i = 0; i < options.warmup(); i++) {
      warmUpOnce(engine, query, firstRunNanos);
    }
    if (compared != null) {
      awaitTurn(compared);
      for (int i = 0; i < options.warmup(); i++) {
        warmUpOnce(compared, query, comparedFirstRunNanos);
      }
    }
  }

  /**
   * The untimed runs of every query as {@link WarmUp#SUITE} makes them: the engine's, pass after pass
   * over the queries, so that its first runs follow one another as in a fresh process running the
   * queries once each; then, once this JVM's compilers are idle, the compared engine's the same way.
   * A query that fails for want of a resource is put in {@code failures} and left out from then on.
   */
  private void warmUpSuite(List<TpchQuery> queries, Map<Integer, String> failures) throws SQLException {
    for (QueryEngine warmed : compared == null ? List.of(engine) : List.of(engine, compared)) {
      awaitTurn(warmed);
      Map<Integer, Long> first = warmed == engine ? firstRunNanos : comparedFirstRunNanos;
      for (int pass = 0; pass < options.warmup(); pass++) {
        for (TpchQuery query : queries) {
          if (failures.containsKey(query.number())) {
            continue;
          }
          try {
            warmUpOnce(warmed, query, first);
          } catch (RuntimeException e) {
            failures.put(query.number(), resourceFailure(e));
          }
        }
      }
    }
  }

  /**
   * Waits until the other engine has nothing left running that would take cores from {@code next}'s
   * runs: before the compared engine, this JVM's compilers ({@link CompilerThreads}); before the engine,
   * the compared engine's own process, if it has one ({@link QueryEngine#awaitIdle}).
   */
  private void awaitTurn(QueryEngine next) {
    if (next == compared) {
      CompilerThreads.awaitIdle();
    } else if (compared != null) {
      compared.awaitIdle();
    }
  }

  /** One untimed run of {@code query} on {@code warmed}; the first of the query's is kept in {@code first}. */
  private void warmUpOnce(QueryEngine warmed, TpchQuery query, Map<Integer, Long> first) throws SQLException {
    try (Timed run = Timed.run(warmed, query, options.parameters(query.number(), scaleFactor))) {
      first.putIfAbsent(query.number(), run.nanos());
    }
  }

  /**
   * Times {@code query}, warmed up before, on the engine and then on the compared engine: one round
   * (see {@link Options#rounds}). In the {@code first} round it also profiles the query (if asked) and
   * verifies the engine's result.
   */
  private QueryReport measure(TpchQuery query, boolean first) throws SQLException {
    QueryParameters parameters = options.parameters(query.number(), scaleFactor);
    long[] times = new long[options.runs()];
    long[] planning = new long[options.runs()];
    QueryEngine.Result kept = null;
    try {
      awaitTurn(engine);
      for (int i = 0; i < options.runs(); i++) {
        Timed run = Timed.run(engine, query, parameters);
        times[i] = run.nanos();
        planning[i] = run.result().planningNanos();
        firstRunNanos.putIfAbsent(query.number(), times[i]);
        if (kept == null) {
          kept = run.result();
        } else {
          run.close();
        }
      }
      if (profiling != null && first) {
        profiles.add(profile(query, parameters));
      }
      long rows = kept.rowCount();
      Boolean verified = null;
      String reason = "not verified";
      ResultComparator.Outcome outcome = !first ? null : switch (options.verification()) {
        case ANSWERS -> ResultComparator.compare(kept.values(), answers.expected(query.number()));
        case DUCKDB -> {
          try (QueryEngine.Result expected = oracle.run(query, parameters)) {
            yield ResultComparator.compare(kept.values(),
                ResultComparator.expectedFrom(query.number(), expected.columns(), expected.values()));
          }
        }
        case NONE -> null;
      };
      if (outcome != null) {
        verified = outcome.matches();
        reason = outcome.message();
      }
      long comparedBest = -1;
      long comparedMedian = -1;
      if (compared != null) {
        awaitTurn(compared);
        long[] comparedTimes = new long[options.runs()];
        for (int i = 0; i < options.runs(); i++) {
          try (Timed run = Timed.run(compared, query, parameters)) {
            comparedTimes[i] = run.nanos();
            comparedFirstRunNanos.putIfAbsent(query.number(), comparedTimes[i]);
          }
        }
        comparedBest = best(comparedTimes);
        comparedMedian = median(comparedTimes);
      }
      long median = median(times);
      return new QueryReport(query.number(), rows, best(times), median, firstRunNanos.get(query.number()),
          verified, reason, comparedBest, comparedMedian, compared == null ? -1 : comparedFirstRunNanos.get(query.number()),
          List.of(median), compared == null ? List.of() : List.of(comparedMedian),
          Arrays.stream(planning).allMatch(nanos -> nanos >= 0) ? List.of(median(planning)) : List.of(), null);
    } finally {
      if (kept != null) {
        kept.close();
      }
    }
  }

  /** The least time a query is profiled for, so that even a fast query leaves enough samples. */
  private static final long PROFILED_NANOS = 1_000_000_000L;

  /**
   * As many runs as were timed, and at least a second of them, under async-profiler and, where the machine has them, hardware
   * counters on the calling thread (workers of a multi-threaded plan are sampled, not counted).
   */
  private QueryProfile profile(TpchQuery query, QueryParameters parameters) {
    Runnable runs = () -> {
      long start = System.nanoTime();
      for (int i = 0; i < options.runs() || System.nanoTime() - start < PROFILED_NANOS; i++) {
        try {
          engine.run(query, parameters).close();
        } catch (SQLException e) {
          throw new IllegalStateException("Q" + query.number() + " failed while profiled: " + e.getMessage(), e);
        }
      }
    };
    Path flameGraph = profiling.directory().resolve("q" + query.number() + "-" + profiling.plan().event() + ".html");
    CounterReading counters;
    try (SamplingProfiler sampler = SamplingProfiler.start(profiling.plan())) {
      counters = HardwareCounters.count(EnumSet.allOf(HwEvent.class), runs);
      sampler.stopTo(flameGraph);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the flame graph " + flameGraph, e);
    }
    return new QueryProfile(query.number(), flameGraph, counters,
        StallBreakdown.describe(counters, profiling.machine()));
  }

  /**
   * Runs every query in order, warmed up as {@link Options#warmUpScope} says, in
   * {@link Options#rounds} rounds (a query's results are verified in the first). A query that cannot
   * run for want of a resource (its memory budget, its spill disk: see {@link #resourceFailure}), or
   * that the engine refuses ({@link QueryRefusedException}), is reported {@linkplain QueryReport#failed
   * failed} with the reason, and the others still run; its memory has been freed by the engine by
   * then. Any other exception ends the run.
   */
  public List<QueryReport> runAll(List<TpchQuery> queries) throws SQLException {
    Map<Integer, String> failures = new HashMap<>();
    if (options.warmUpScope() == WarmUp.SUITE) {
      warmUpSuite(queries, failures);
    }
    Map<Integer, List<QueryReport>> rounds = new HashMap<>();
    for (int round = 0; round < options.rounds(); round++) {
      for (TpchQuery query : queries) {
        if (failures.containsKey(query.number())) {
          continue;
        }
        try {
          boolean first = round == 0; // the first round's results are the ones verified and profiled
          if (first && options.warmUpScope() == WarmUp.QUERY) {
            warmUp(query);
          }
          rounds.computeIfAbsent(query.number(), n -> new ArrayList<>()).add(measure(query, first));
        } catch (RuntimeException e) {
          failures.put(query.number(), resourceFailure(e));
        }
      }
    }
    List<QueryReport> reports = new ArrayList<>();
    for (TpchQuery query : queries) {
      String failure = failures.get(query.number());
      reports.add(failure != null ? QueryReport.failed(query.number(), failure) : Rounds.combine(rounds.get(query.number())));
    }
    return reports;
  }

  /**
   * The reason to report for a query that failed with {@code e} when the failure is the query's
   * resources running out (a {@link BudgetExceededException}, a spill directory that is full or
   * cannot be written) or the engine refusing it ({@link QueryRefusedException}); rethrows anything else.
   */
  static String resourceFailure(RuntimeException e) {
    if (e instanceof BudgetExceededException || e instanceof SpillException || e instanceof JoinSpillException
        || e instanceof QueryRefusedException) {
      return e.getMessage();
    }
    throw e;
  }

  static long best(long[] times) {
    return Arrays.stream(times).min().orElseThrow();
  }

  /** The median; for an even count the lower middle value (a time actually measured). */
  static long median(long[] times) {
    long[] sorted = times.clone();
    Arrays.sort(sorted);
    return sorted[(sorted.length - 1) / 2];
  }

  /** One run's result and its time: the engine's own where it measures one (another process), else this clock's. */
  private record Timed(QueryEngine.Result result, long nanos) implements AutoCloseable {
    static Timed run(QueryEngine engine, TpchQuery query, QueryParameters parameters) throws SQLException {
      long start = System.nanoTime();
      QueryEngine.Result result = engine.run(query, parameters);
      long elapsed = System.nanoTime() - start;
      return new Timed(result, result.engineNanos() >= 0 ? result.engineNanos() : elapsed);
    }

    @Override
    public void close() {
      result.close();
    }
  }
}
