package dev.memwall.bench.run;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The iteration settings {@code ./memwall bench} uses where the user gives none: fewer, shorter
 * iterations than JMH's own defaults (5 forks of 5 x 10 s warm-up and 5 x 10 s measurement, over 8
 * minutes per benchmark and parameter combination), sized for 2-core machines shared with other
 * work, where ratios measured within one fork are what carries meaning (see
 * docs/benchmarks/machine.md for the suite-length calculation).
 *
 * <p>These settings replace the benchmark classes' own {@code @Fork}/{@code @Warmup}/
 * {@code @Measurement} counts and times (JMH gives options precedence over annotations); a class's
 * {@code @Fork(jvmArgsAppend = ...)} still applies. Any of {@code -f -wi -w -i -r} given by the user
 * wins over the default for that setting only.
 *
 * @param forks {@code -f}
 * @param warmupIterations {@code -wi}
 * @param warmupTime {@code -w}
 * @param measurementIterations {@code -i}
 * @param measurementTime {@code -r}
 */
public record RunDefaults(int forks, int warmupIterations, TimeValue warmupTime, int measurementIterations,
    TimeValue measurementTime) {

  /** The full run: {@code -f 1 -wi 3 -w 1s -i 5 -r 1s}, about 8 s of iterations per benchmark and parameter set. */
  public static final RunDefaults FULL = new RunDefaults(1, 3, TimeValue.seconds(1), 5, TimeValue.seconds(1));

  /** {@link #QUICK} as JMH options, for help texts; {@code QUICK.describe()} equals it. */
  public static final String QUICK_OPTIONS = "-f 1 -wi 1 -w 200ms -i 2 -r 200ms";

  /** {@code --quick}, a smoke run: {@value #QUICK_OPTIONS}. */
  public static final RunDefaults QUICK = new RunDefaults(1, 1, new TimeValue(200, TimeUnit.MILLISECONDS), 2,
      new TimeValue(200, TimeUnit.MILLISECONDS));

  /** Sets on {@code builder} every default that {@code user} does not set itself. */
  public void applyTo(ChainedOptionsBuilder builder, Options user) {
    if (!user.getForkCount().hasValue()) {
      builder.forks(forks);
    }
    if (!user.getWarmupIterations().hasValue()) {
      builder.warmupIterations(warmupIterations);
    }
    if (!user.getWarmupTime().hasValue()) {
      builder.warmupTime(warmupTime);
    }
    if (!user.getMeasurementIterations().hasValue()) {
      builder.measurementIterations(measurementIterations);
    }
    if (!user.getMeasurementTime().hasValue()) {
      builder.measurementTime(measurementTime);
    }
  }

  /** The settings as JMH options, {@code -f 1 -wi 3 -w 1s -i 5 -r 1s}. */
  public String describe() {
    return "-f " + forks + " -wi " + warmupIterations + " -w " + compact(warmupTime) + " -i " + measurementIterations
        + " -r " + compact(measurementTime);
  }

  private static String compact(TimeValue time) {
    return time.toString().replace(" ", "");
  }
}
