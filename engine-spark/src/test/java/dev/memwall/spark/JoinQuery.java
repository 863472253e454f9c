package dev.memwall.spark;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * A generated query over two {@link JoinFiles} tables, {@code fact} as {@code l} and {@code dim} as
 * {@code r}: each side its table's rows that pass a filter (pushed into memwall's scan), or those rows
 * aggregated by the join key (a partial aggregation memwall runs: {@code count(*) as n, sum(v) as v,
 * min(x) as x, max(g) as g}); the two joined on one key (a skewed int, a double with NaN and -0.0, a
 * string; all with nulls) by a join type and a strategy hint; a filter above the join and an aggregation
 * above that. Only valid queries are made: a semi or anti join's output has no {@code r} columns.
 *
 * @param join {@code inner}, {@code left}, {@code left semi}, {@code left anti} or {@code full}
 * @param hint Spark's join strategy hint for {@code r}: {@code broadcast}, {@code shuffle_hash} or {@code merge}
 * @param key the join key column
 * @param leftAggregated whether {@code l} is aggregated by the key
 * @param rightAggregated whether {@code r} is
 * @param leftFilter the filter of {@code fact} (empty: none)
 * @param rightFilter the filter of {@code dim} (empty: none)
 * @param above the filter over the join (empty: none)
 * @param groupBy the grouping key above the join (empty: none)
 * @param aggregates the aggregates above the join
 */
record JoinQuery(String join, String hint, String key, boolean leftAggregated, boolean rightAggregated,
    String leftFilter, String rightFilter, String above, String groupBy, List<String> aggregates) {

  private static final List<String> LEFT_FILTERS = List.of("", "g > 2", "x > 0.0", "kd = cast('NaN' as double)",
      "s is not null and v < 500", "k in (0, 1, 5)", "not (x <= -0.0)");
  private static final List<String> RIGHT_FILTERS = List.of("", "g <> 3", "x >= -1.0", "s in ('apple', 'fig', '')",
      "kd > 0.0", "k < 20");
  private static final List<String> LEFT_ONLY_ABOVE =
      List.of("", "l.v > 0", "l.x < 1.0 or l.x = cast('NaN' as double)");
  private static final List<String> BOTH_ABOVE = List.of("l.x >= r.x", "r.v is null", "l.g <> coalesce(r.g, -1)");
  private static final List<String> LEFT_AGGREGATES = List.of("count(*)", "sum(l.v)", "min(l.x)", "max(l.x)",
      "count(l.g)", "avg(l.v)");
  private static final List<String> RIGHT_AGGREGATES = List.of("sum(r.v)", "min(r.x)", "max(r.x)", "count(r.g)");

  /** Whether {@code r}'s columns are in the join's output. */
  boolean seesRight() {
    return !join.startsWith("left semi") && !join.startsWith("left anti");
  }

  String sql(String fact, String dim) {
    List<String> select = new ArrayList<>();
    if (!groupBy.isEmpty()) {
      select.add(groupBy);
    }
    select.addAll(aggregates);
    if (leftAggregated) {
      select.add("sum(l.n)"); // the aggregation below needs its functions: memwall runs it
    }
    if (rightAggregated && seesRight()) {
      select.add("sum(r.n)");
    }
    return "select /*+ " + hint + "(r) */ " + String.join(", ", select) + " from " + side(fact, leftFilter,
        leftAggregated) + " l " + join + " join " + side(dim, rightFilter, rightAggregated) + " r on l." + key
        + " = r." + key + (above.isEmpty() ? "" : " where " + above) + (groupBy.isEmpty() ? "" : " group by "
        + groupBy);
  }

  private String side(String table, String filter, boolean aggregated) {
    String where = filter.isEmpty() ? "" : " where " + filter;
    return aggregated
        ? "(select " + key + ", count(*) as n, sum(v) as v, min(x) as x, max(g) as g from " + table + where
            + " group by " + key + ")"
        : "(select * from " + table + where + ")";
  }

  /** Valid random queries. */
  static Arbitrary<JoinQuery> queries() {
    Arbitrary<String> joins = Arbitraries.of("inner", "left", "left semi", "left anti", "full");
    Arbitrary<String> hints = Arbitraries.of("broadcast", "shuffle_hash", "merge");
    Arbitrary<String> keys = Arbitraries.of("k", "kd", "s");
    Arbitrary<Boolean> aggregated = Arbitraries.of(false, false, true);
    return Combinators.combine(joins, hints, keys, aggregated, aggregated, Arbitraries.of(LEFT_FILTERS),
        Arbitraries.of(RIGHT_FILTERS), Arbitraries.longs()).as((join, hint, key, left, right, lf, rf, pick) -> {
          java.util.Random random = new java.util.Random(pick);
          boolean seesRight = !join.startsWith("left semi") && !join.startsWith("left anti");
          List<String> aboves = new ArrayList<>(LEFT_ONLY_ABOVE);
          List<String> groups = new ArrayList<>(List.of("", "l.g", "l.x"));
          List<String> functions = new ArrayList<>(LEFT_AGGREGATES);
          if (seesRight) {
            aboves.addAll(BOTH_ABOVE);
            groups.add("r.g");
            functions.addAll(RIGHT_AGGREGATES);
          }
          java.util.Collections.shuffle(functions, random);
          return new JoinQuery(join, hint, key, left, right, lf, rf, aboves.get(random.nextInt(aboves.size())),
              groups.get(random.nextInt(groups.size())), List.copyOf(functions.subList(0, 1 + random.nextInt(3))));
        });
  }
}
