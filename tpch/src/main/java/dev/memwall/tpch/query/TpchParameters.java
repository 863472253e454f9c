package dev.memwall.tpch.query;

import io.trino.tpch.Distribution;
import io.trino.tpch.Distributions;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The substitution parameters of the 22 TPC-H queries: the specification's validation values
 * (section 2.4, "values for query validation"), or random values drawn by the rules qgen follows
 * (the domains of section 2.4 for each query: dates, ranges, and values from dbgen's own lists of
 * nations, regions, segments, ship modes, part types, containers and colours, taken from
 * {@code io.trino.tpch}'s distributions).
 *
 * <p>A seed determines every query's parameters; query {@code n} draws from its own stream, so
 * running a subset of queries does not change their values. The stream is not qgen's (whose
 * generator is not specified), only its domains are. Stateless and thread-safe. Bad input: a query
 * number outside 1..22 or a scale factor that is not positive throws {@link IllegalArgumentException}.
 */
public final class TpchParameters {
  private static final Distributions LISTS = Distributions.getDefaultDistributions();
  private static final List<Nation> NATIONS = nations(LISTS.getNations());
  private static final List<String> REGIONS = LISTS.getRegions().getValues();
  private static final List<String> TYPE_FIRST = List.of("STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO");
  private static final List<String> TYPE_SECOND = List.of("ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED");
  private static final List<String> TYPE_THIRD = List.of("TIN", "NICKEL", "BRASS", "STEEL", "COPPER");
  private static final List<String> Q13_FIRST_WORDS = List.of("special", "pending", "unusual", "express");
  private static final List<String> Q13_SECOND_WORDS = List.of("packages", "requests", "accounts", "deposits");

  private TpchParameters() {}

  /** The specification's validation parameters of {@code query} at {@code scaleFactor}. */
  public static QueryParameters validation(int query, double scaleFactor) {
    check(query, scaleFactor);
    Map<String, Object> p = new LinkedHashMap<>();
    switch (query) {
      case 1 -> p.put("DELTA", 90);
      case 2 -> {
        p.put("SIZE", 15);
        p.put("TYPE", "BRASS");
        p.put("REGION", "EUROPE");
      }
      case 3 -> {
        p.put("SEGMENT", "BUILDING");
        p.put("DATE", LocalDate.of(1995, 3, 15));
      }
      case 4 -> p.put("DATE", LocalDate.of(1993, 7, 1));
      case 5 -> {
        p.put("REGION", "ASIA");
        p.put("DATE", LocalDate.of(1994, 1, 1));
      }
      case 6 -> {
        p.put("DATE", LocalDate.of(1994, 1, 1));
        p.put("DISCOUNT", new BigDecimal("0.06"));
        p.put("QUANTITY", 24);
      }
      case 7 -> {
        p.put("NATION1", "FRANCE");
        p.put("NATION2", "GERMANY");
      }
      case 8 -> {
        p.put("NATION", "BRAZIL");
        p.put("REGION", "AMERICA");
        p.put("TYPE", "ECONOMY ANODIZED STEEL");
      }
      case 9 -> p.put("COLOR", "green");
      case 10 -> p.put("DATE", LocalDate.of(1993, 10, 1));
      case 11 -> {
        p.put("NATION", "GERMANY");
        p.put("FRACTION", fraction(scaleFactor));
      }
      case 12 -> {
        p.put("SHIPMODE1", "MAIL");
        p.put("SHIPMODE2", "SHIP");
        p.put("DATE", LocalDate.of(1994, 1, 1));
      }
      case 13 -> {
        p.put("WORD1", "special");
        p.put("WORD2", "requests");
      }
      case 14 -> p.put("DATE", LocalDate.of(1995, 9, 1));
      case 15 -> p.put("DATE", LocalDate.of(1996, 1, 1));
      case 16 -> {
        p.put("BRAND", "Brand#45");
        p.put("TYPE", "MEDIUM POLISHED");
        p.put("SIZES", List.of(49, 14, 23, 45, 19, 3, 36, 9));
      }
      case 17 -> {
        p.put("BRAND", "Brand#23");
        p.put("CONTAINER", "MED BOX");
      }
      case 18 -> p.put("QUANTITY", 300);
      case 19 -> {
        p.put("QUANTITY1", 1);
        p.put("QUANTITY2", 10);
        p.put("QUANTITY3", 20);
        p.put("BRAND1", "Brand#12");
        p.put("BRAND2", "Brand#23");
        p.put("BRAND3", "Brand#34");
      }
      case 20 -> {
        p.put("COLOR", "forest");
        p.put("DATE", LocalDate.of(1994, 1, 1));
        p.put("NATION", "CANADA");
      }
      case 21 -> p.put("NATION", "SAUDI ARABIA");
      case 22 -> p.put("CODES", List.of("13", "31", "23", "29", "30", "18", "17"));
      default -> throw new AssertionError(query);
    }
    return new QueryParameters(query, p);
  }

  /** Random parameters of {@code query} at {@code scaleFactor}, determined by {@code seed}. */
  public static QueryParameters random(int query, double scaleFactor, long seed) {
    check(query, scaleFactor);
    SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + query);
    Map<String, Object> p = new LinkedHashMap<>();
    switch (query) {
      case 1 -> p.put("DELTA", between(random, 60, 120));
      case 2 -> {
        p.put("SIZE", between(random, 1, 50));
        p.put("TYPE", pick(random, TYPE_THIRD));
        p.put("REGION", pick(random, regionNames()));
      }
      case 3 -> {
        p.put("SEGMENT", pick(random, LISTS.getMarketSegments().getValues()));
        p.put("DATE", LocalDate.of(1995, 3, between(random, 1, 31)));
      }
      case 4, 15 -> p.put("DATE", firstOfMonth(random, LocalDate.of(1993, 1, 1), LocalDate.of(1997, 10, 1)));
      case 5 -> {
        p.put("REGION", pick(random, regionNames()));
        p.put("DATE", newYear(random));
      }
      case 6 -> {
        p.put("DATE", newYear(random));
        p.put("DISCOUNT", BigDecimal.valueOf(between(random, 2, 9), 2));
        p.put("QUANTITY", between(random, 24, 25));
      }
      case 7 -> {
        List<String> two = distinct(random, nationNames(), 2);
        p.put("NATION1", two.get(0));
        p.put("NATION2", two.get(1));
      }
      case 8 -> {
        Nation nation = pick(random, NATIONS);
        p.put("NATION", nation.name());
        p.put("REGION", REGIONS.get(nation.regionKey()));
        p.put("TYPE", pick(random, LISTS.getPartTypes().getValues()));
      }
      case 9 -> p.put("COLOR", pick(random, LISTS.getPartColors().getValues()));
      case 10 -> p.put("DATE", firstOfMonth(random, LocalDate.of(1993, 2, 1), LocalDate.of(1995, 1, 1)));
      case 11 -> {
        p.put("NATION", pick(random, nationNames()));
        p.put("FRACTION", fraction(scaleFactor));
      }
      case 12 -> {
        List<String> two = distinct(random, LISTS.getShipModes().getValues(), 2);
        p.put("SHIPMODE1", two.get(0));
        p.put("SHIPMODE2", two.get(1));
        p.put("DATE", newYear(random));
      }
      case 13 -> {
        p.put("WORD1", pick(random, Q13_FIRST_WORDS));
        p.put("WORD2", pick(random, Q13_SECOND_WORDS));
      }
      case 14 -> p.put("DATE", firstOfMonth(random, LocalDate.of(1993, 1, 1), LocalDate.of(1997, 12, 1)));
      case 16 -> {
        p.put("BRAND", brand(random));
        p.put("TYPE", pick(random, TYPE_FIRST) + " " + pick(random, TYPE_SECOND));
        p.put("SIZES", distinct(random, sizes(), 8));
      }
      case 17 -> {
        p.put("BRAND", brand(random));
        p.put("CONTAINER", pick(random, LISTS.getPartContainers().getValues()));
      }
      case 18 -> p.put("QUANTITY", between(random, 312, 315));
      case 19 -> {
        p.put("QUANTITY1", between(random, 1, 10));
        p.put("QUANTITY2", between(random, 10, 20));
        p.put("QUANTITY3", between(random, 20, 30));
        p.put("BRAND1", brand(random));
        p.put("BRAND2", brand(random));
        p.put("BRAND3", brand(random));
      }
      case 20 -> {
        p.put("COLOR", pick(random, LISTS.getPartColors().getValues()));
        p.put("DATE", newYear(random));
        p.put("NATION", pick(random, nationNames()));
      }
      case 21 -> p.put("NATION", pick(random, nationNames()));
      case 22 -> {
        List<String> codes = new ArrayList<>();
        for (Nation nation : NATIONS) {
          codes.add(Long.toString(nation.nationKey() + 10)); // c_phone starts with nationkey + 10
        }
        p.put("CODES", distinct(random, codes, 7));
      }
      default -> throw new AssertionError(query);
    }
    return new QueryParameters(query, p);
  }

  /** Q11's FRACTION: 0.0001 / SF, exact in decimal. */
  private static BigDecimal fraction(double scaleFactor) {
    return new BigDecimal("0.0001").divide(BigDecimal.valueOf(scaleFactor), java.math.MathContext.DECIMAL64)
        .stripTrailingZeros();
  }

  private static void check(int query, double scaleFactor) {
    if (query < 1 || query > 22) {
      throw new IllegalArgumentException("unknown TPC-H query " + query + " (queries are numbered 1 to 22)");
    }
    if (!(scaleFactor > 0)) {
      throw new IllegalArgumentException("the scale factor must be positive, got " + scaleFactor);
    }
  }

  private static int between(SplittableRandom random, int low, int high) {
    return random.nextInt(low, high + 1);
  }

  private static <T> T pick(SplittableRandom random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  /** {@code count} different values of {@code values}, in the order drawn. */
  private static <T> List<T> distinct(SplittableRandom random, List<T> values, int count) {
    List<T> remaining = new ArrayList<>(values);
    List<T> drawn = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      drawn.add(remaining.remove(random.nextInt(remaining.size())));
    }
    return List.copyOf(drawn);
  }

  private static LocalDate newYear(SplittableRandom random) {
    return LocalDate.of(between(random, 1993, 1997), 1, 1);
  }

  private static LocalDate firstOfMonth(SplittableRandom random, LocalDate first, LocalDate last) {
    long months = java.time.temporal.ChronoUnit.MONTHS.between(first, last);
    return first.plusMonths(random.nextLong(months + 1));
  }

  private static String brand(SplittableRandom random) {
    return "Brand#" + between(random, 1, 5) + between(random, 1, 5);
  }

  private static List<Integer> sizes() {
    List<Integer> sizes = new ArrayList<>();
    for (int size = 1; size <= 50; size++) {
      sizes.add(size);
    }
    return sizes;
  }

  private static List<String> nationNames() {
    return NATIONS.stream().map(Nation::name).toList();
  }

  private static List<String> regionNames() {
    return REGIONS;
  }

  /** A nation as dbgen's distribution lists it: key = position, weight = region key. */
  private record Nation(int nationKey, String name, int regionKey) {}

  /**
   * The nations from dbgen's list rather than {@code io.trino.tpch}'s generator, which would first
   * build its 300 MB text pool for the comments.
   */
  private static List<Nation> nations(Distribution distribution) {
    List<Nation> nations = new ArrayList<>();
    for (int key = 0; key < distribution.size(); key++) {
      nations.add(new Nation(key, distribution.getValue(key), distribution.getWeight(key)));
    }
    return List.copyOf(nations);
  }
}
