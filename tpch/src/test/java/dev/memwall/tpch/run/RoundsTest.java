package dev.memwall.tpch.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.tpch.run.TpchRunner.QueryReport;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundsTest {
  private static QueryReport round(int query, long best, long median, long comparedBest, long comparedMedian) {
    return new QueryReport(query, 10, best, median, 500, true, "ok", comparedBest, comparedMedian, 50,
        List.of(median), List.of(comparedMedian), List.of(), null);
  }

  private static QueryReport planned(long median, List<Long> planning) {
    return new QueryReport(1, 10, median, median, 500, true, "ok", -1, -1, -1, List.of(median), List.of(), planning,
        null);
  }

  @Test
  void aQuerysRoundsCombineIntoMediansOfRoundMediansAndBestOfAll() {
    QueryReport combined = Rounds.combine(List.of(round(1, 90, 100, 40, 50), round(1, 70, 300, 45, 100),
        round(1, 95, 120, 30, 60)));
    assertEquals(70, combined.bestNanos());
    assertEquals(120, combined.medianNanos());
    assertEquals(30, combined.comparedBestNanos());
    assertEquals(60, combined.comparedMedianNanos());
    assertEquals(List.of(100L, 300L, 120L), combined.roundMedians());
    assertEquals(List.of(2.0, 3.0, 2.0), combined.roundRatios());
    assertEquals(2.0, combined.ratio(), "the median of the rounds' ratios, not the ratio of the medians");
    assertEquals(500, combined.firstNanos());
    assertEquals(50, combined.comparedFirstNanos());
  }

  @Test
  void planningTimesCombineIntoTheLowerMedianOfTheRounds() {
    QueryReport combined = Rounds.combine(List.of(planned(100, List.of(7L)), planned(90, List.of(3L)),
        planned(95, List.of(9L)), planned(99, List.of(5L))));
    assertEquals(List.of(7L, 3L, 9L, 5L), combined.roundPlanningMedians());
    assertEquals(5, combined.planningNanos(), "the lower middle of an even count: a time actually measured");
    assertEquals(-1, round(1, 90, 100, 40, 50).planningNanos(), "an engine that does not tell planning apart");
    assertEquals(-1, QueryReport.failed(2, "budget").planningNanos());
  }

  @Test
  void planningTimesOfOnlySomeRoundsAreNotReported() {
    QueryReport combined = Rounds.combine(List.of(planned(100, List.of(7L)), planned(90, List.of())));
    assertTrue(combined.roundPlanningMedians().isEmpty(), "a median over some rounds would not be the query's");
    assertEquals(-1, combined.planningNanos());
  }

  @Test
  void totalRatiosSumEachRoundOverTheQueriesThatRan() {
    QueryReport q1 = Rounds.combine(List.of(round(1, 1, 100, 1, 50), round(1, 1, 200, 1, 50)));
    QueryReport q2 = Rounds.combine(List.of(round(2, 1, 300, 1, 150), round(2, 1, 100, 1, 150)));
    QueryReport failed = QueryReport.failed(3, "budget");
    assertEquals(List.of(2.0, 1.5), Rounds.totalRatios(List.of(q1, q2, failed)));
    assertEquals(1.75, Rounds.median(Rounds.totalRatios(List.of(q1, q2, failed))));
    assertEquals("1.50-2.00", Rounds.range(Rounds.totalRatios(List.of(q1, q2))));
    assertTrue(Rounds.totalRatios(List.of(failed)).isEmpty());
    assertTrue(Double.isNaN(failed.ratio()));
  }
}
