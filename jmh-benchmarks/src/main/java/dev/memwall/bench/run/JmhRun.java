package dev.memwall.bench.run;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.openjdk.jmh.profile.AsyncProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The JMH options of one {@code ./memwall bench} run: the user's JMH command line, completed by
 * {@link RunDefaults} where it is silent, a JSON result file in {@code bench-results/} unless the
 * user chose one ({@code -rf}/{@code -rff}), and async-profiler when profiling.
 *
 * <p>Result files are named after the first benchmark pattern and the time:
 * {@code bench-results/ScanBandwidth-20261122-065012.json} ({@code quick-} in front for
 * {@code --quick}). Given only {@code -rff x.json}, the format follows the extension instead of
 * JMH's default (CSV).
 *
 * <p>Stateless and thread-safe.
 */
public final class JmhRun {
  /** The start of the name of a default result file of a {@code --quick} run. */
  public static final String QUICK_PREFIX = "quick-";
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT);

  /**
   * async-profiler for the run.
   *
   * @param library the extracted {@code libasyncProfiler.so}
   * @param event the event to sample (already checked, see {@link ProfilerEvents})
   * @param directory where JMH writes {@code <benchmark id>/flame-<event>-{forward,reverse}.html}
   */
  public record Profile(Path library, String event, Path directory) {
    /** JMH's init line for {@code -prof async:...}. */
    public String initLine() {
      return "libPath=" + library.toAbsolutePath() + ";event=" + event + ";output=flamegraph;dir="
          + directory.toAbsolutePath();
    }
  }

  /** The options and where the results go (empty when the user's own -rf/-rff decide). */
  public record Plan(Options options, Optional<Path> resultFile) {}

  private JmhRun() {}

  /**
   * The options for a run.
   *
   * @param user the user's JMH command line
   * @param defaults the iteration settings where the user has none
   * @param profile async-profiler, if profiling
   * @param resultsDirectory where a default result file goes
   * @param now the time to name a default result file after
   */
  public static Plan plan(CommandLineOptions user, RunDefaults defaults, Optional<Profile> profile,
      Path resultsDirectory, LocalDateTime now) {
    ChainedOptionsBuilder builder = new OptionsBuilder().parent(user);
    defaults.applyTo(builder, user);
    Optional<Path> resultFile = Optional.empty();
    boolean userFormat = user.getResultFormat().hasValue();
    boolean userFile = user.getResult().hasValue();
    if (!userFormat && !userFile) {
      Path file = resultsDirectory.resolve(defaultName(user.getIncludes(), defaults == RunDefaults.QUICK, now));
      builder.resultFormat(ResultFormatType.JSON).result(file.toString());
      resultFile = Optional.of(file);
    } else if (!userFormat) {
      builder.resultFormat(formatOf(user.getResult().get()));
      resultFile = Optional.of(Path.of(user.getResult().get()));
    } else if (userFile) {
      resultFile = Optional.of(Path.of(user.getResult().get()));
    }
    profile.ifPresent(p -> builder.addProfiler(AsyncProfiler.class, p.initLine()));
    return new Plan(builder.build(), resultFile);
  }

  static String defaultName(List<String> includes, boolean quick, LocalDateTime now) {
    String what = includes.isEmpty() ? "all" : includes.getFirst().replaceAll("[^A-Za-z0-9_.-]", "_");
    if (what.length() > 60) {
      what = what.substring(0, 60);
    }
    return (quick ? QUICK_PREFIX : "") + what + "-" + STAMP.format(now) + ".json";
  }

  private static ResultFormatType formatOf(String file) {
    String lower = file.toLowerCase(Locale.ROOT);
    for (ResultFormatType type : ResultFormatType.values()) {
      if (lower.endsWith("." + type.name().toLowerCase(Locale.ROOT))) {
        return type;
      }
    }
    return lower.endsWith(".txt") ? ResultFormatType.TEXT : ResultFormatType.JSON;
  }
}
