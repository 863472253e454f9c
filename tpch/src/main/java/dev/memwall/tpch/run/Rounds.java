package dev.memwall.tpch.run;

import dev.memwall.tpch.run.TpchRunner.QueryReport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * How the rounds of a run ({@link TpchRunner.Options#rounds}) add up: a query's rounds into one report,
 * and the whole set's ratio per round, which says more than one total when the machine is noisy.
 * Stateless.
 */
public final class Rounds {
  private Rounds() {}

  /**
   * Each round's total: the sum of the engine's round medians over the sum of the compared engine's,
   * over the queries that ran. Empty when none was compared.
   */
  public static List<Double> totalRatios(List<QueryReport> reports) {
    List<Double> ratios = new ArrayList<>();
    int rounds = reports.stream().filter(r -> !r.failed()).mapToInt(r -> r.comparedRoundMedians().size()).max().orElse(0);
    for (int round = 0; round < rounds; round++) {
      long engine = 0;
      long compared = 0;
      for (QueryReport report : reports) {
        if (!report.failed() && report.comparedRoundMedians().size() > round) {
          engine += report.roundMedians().get(round);
          compared += report.comparedRoundMedians().get(round);
        }
      }
      ratios.add((double) engine / compared);
    }
    return ratios;
  }

  /** The median of {@code values} (the mean of the middle two for an even count), NaN when empty. */
  public static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }

  /** {@code values}' least and greatest, as {@code 0.81-0.93}; {@code -} when empty. */
  public static String range(List<Double> values) {
    if (values.isEmpty()) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.2f-%.2f", Collections.min(values), Collections.max(values));
  }

  /** {@code values} to two decimals, in order, as {@code 0.81, 0.93, 0.88}. */
  public static String list(List<Double> values) {
    return String.join(", ", values.stream().map(v -> String.format(Locale.ROOT, "%.2f", v)).toList());
  }

  /** One report of a query's rounds, in order; verification and first runs are the first round's. */
  static QueryReport combine(List<QueryReport> rounds) {
    QueryReport first = rounds.getFirst();
    List<Long> medians = new ArrayList<>();
    List<Long> comparedMedians = new ArrayList<>();
    List<Long> planningMedians = new ArrayList<>();
    long best = Long.MAX_VALUE;
    long comparedBest = Long.MAX_VALUE;
    for (QueryReport round : rounds) {
      medians.addAll(round.roundMedians());
      comparedMedians.addAll(round.comparedRoundMedians());
      planningMedians.addAll(round.roundPlanningMedians());
      best = Math.min(best, round.bestNanos());
      comparedBest = Math.min(comparedBest, round.comparedBestNanos());
    }
    return new QueryReport(first.query(), first.rows(), best, lowerMedian(medians), first.firstNanos(),
        first.verified(), first.reason(), comparedBest, comparedMedians.isEmpty() ? -1 : lowerMedian(comparedMedians),
        first.comparedFirstNanos(), medians, comparedMedians,
        planningMedians.size() == medians.size() ? planningMedians : List.of(), null);
  }

  /** The lower middle value: a time actually measured. */
  static long lowerMedian(List<Long> times) {
    return TpchRunner.median(times.stream().mapToLong(Long::longValue).toArray());
  }
}
