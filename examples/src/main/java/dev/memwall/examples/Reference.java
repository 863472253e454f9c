package dev.memwall.examples;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/** The example's answer computed with plain Java loops over the same generated rows. */
final class Reference {
  private Reference() {}

  /** The {@code n} regions of highest revenue from orders since March 1 over 10.00, formatted as {@link Results} does. */
  static String topRegions(int n) {
    Map<String, BigDecimal> revenue = new HashMap<>();
    Map<String, Long> orders = new HashMap<>();
    LocalDate march = LocalDate.of(2025, 3, 1);
    for (int i = 0; i < EmbeddingExample.ORDERS; i++) {
      BigDecimal amount = EmbeddingExample.amountOf(i);
      if (EmbeddingExample.dayOf(i).isBefore(march) || amount.compareTo(BigDecimal.TEN) <= 0) {
        continue;
      }
      String region = EmbeddingExample.REGIONS.get(EmbeddingExample.customerOf(i) % EmbeddingExample.REGIONS.size());
      revenue.merge(region, amount, BigDecimal::add);
      orders.merge(region, 1L, Long::sum);
    }
    StringBuilder out = new StringBuilder();
    revenue.entrySet().stream().sorted(Map.Entry.<String, BigDecimal>comparingByValue(Comparator.reverseOrder()))
        .limit(n)
        .forEach(e -> out.append(Results.line(e.getKey(), e.getValue(), orders.get(e.getKey()))));
    return out.toString();
  }
}
