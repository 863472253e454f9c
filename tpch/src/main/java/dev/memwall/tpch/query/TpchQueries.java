package dev.memwall.tpch.query;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The registry of implemented TPC-H queries, by number.
 *
 * <p>Thread safety: immutable after class initialisation. Bad input: {@link #byNumber} returns
 * empty for a number that is not implemented (or not 1..22); {@link #require} throws
 * {@link IllegalArgumentException} with a one-line message.
 */
public final class TpchQueries {
  private static final Map<Integer, TpchQuery> QUERIES = register();

  private TpchQueries() {}

  /**
   * THE place to register query implementations: add one line per query, e.g.
   * {@code add(queries, Q1::new);}.
   */
  private static Map<Integer, TpchQuery> register() {
    Map<Integer, TpchQuery> queries = new TreeMap<>();
    add(queries, Q1::new);
    add(queries, Q3::new);
    add(queries, Q5::new);
    add(queries, Q4::new);
    add(queries, Q10::new);
    add(queries, Q2::new);
    add(queries, Q11::new);
    add(queries, Q7::new);
    add(queries, Q8::new);
    add(queries, Q9::new);
    add(queries, Q6::new);
    add(queries, Q12::new);
    add(queries, Q13::new);
    add(queries, Q14::new);
    add(queries, Q15::new);
    add(queries, Q16::new);
    add(queries, Q17::new);
    add(queries, Q18::new);
    add(queries, Q19::new);
    add(queries, Q20::new);
    add(queries, Q21::new);
    add(queries, Q22::new);
    return Map.copyOf(queries);
  }

  private static void add(Map<Integer, TpchQuery> queries, Supplier<TpchQuery> factory) {
    TpchQuery query = factory.get();
    if (query.number() < 1 || query.number() > 22 || queries.putIfAbsent(query.number(), query) != null) {
      throw new IllegalStateException("bad or duplicate TPC-H query number " + query.number());
    }
  }

  /** The implementation of query {@code number}, if there is one. */
  public static Optional<TpchQuery> byNumber(int number) {
    return Optional.ofNullable(QUERIES.get(number));
  }

  /**
   * The implementation of query {@code number}.
   *
   * @throws IllegalArgumentException when the number is not 1..22 or the query is not implemented yet
   */
  public static TpchQuery require(int number) {
    if (number < 1 || number > 22) {
      throw new IllegalArgumentException("unknown TPC-H query " + number + " (queries are numbered 1 to 22)");
    }
    return byNumber(number).orElseThrow(() -> new IllegalArgumentException("TPC-H query " + number
        + " is not implemented yet (implemented: " + (implemented().isEmpty() ? "none" : implemented()) + ")"));
  }

  /** The numbers of the implemented queries, ascending. */
  public static List<Integer> implemented() {
    return QUERIES.keySet().stream().sorted().toList();
  }
}
