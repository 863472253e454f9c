package dev.memwall.tpch.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.tpch.run.TpchRunner.QueryReport;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundsTest {
  private static QueryReport round(int query, long best, long median, long comparedBest, long comparedMedian) {
    return new QueryReport(query, 10, best, median, 500, true, "ok", comparedBest, comparedMedian, 50,
        List.of(median), List.of(comparedMedian), null);
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
