package dev.memwall.substrait;

import static dev.memwall.substrait.Fixture.B;
import static dev.memwall.substrait.Fixture.N;
import static dev.memwall.substrait.Fixture.call;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import io.substrait.expression.Expression;
import io.substrait.expression.Expression.AggregationInvocation;
import io.substrait.expression.ExpressionCreator;
import io.substrait.relation.Aggregate;
import io.substrait.relation.Rel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Random filter, project and aggregate plans built with Substrait's Java API over a generated table
 * {@code (k INT64, a INT32, s STRING)} with nulls in every column, skewed keys, INT32's limits and
 * empty strings, run through memwall against a reference evaluator of SQL's semantics written here
 * (three-valued predicates, aggregates that skip nulls, one row for a global aggregate of nothing).
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class SubstraitPlanProperties {
  /** One row; null is SQL's null. */
  record Row(Long k, Integer a, String s) {}

  /** A predicate over a row: a comparison of {@code a} with a constant, {@code s} is null, or AND/OR/NOT of predicates. */
  sealed interface Predicate {
    /** TRUE, FALSE or null (unknown). */
    Boolean eval(Row row);

    Expression substrait(Rel input);
  }

  record Compare(String op, int constant) implements Predicate {
    @Override
    public Boolean eval(Row row) {
      if (row.a() == null) {
        return null;
      }
      int c = Integer.compare(row.a(), constant);
      return switch (op) {
        case "lt" -> c < 0;
        case "lte" -> c <= 0;
        case "gt" -> c > 0;
        case "gte" -> c >= 0;
        case "equal" -> c == 0;
        default -> c != 0;
      };
    }

    @Override
    public Expression substrait(Rel input) {
      return call(op, N.BOOLEAN, B.fieldReference(input, 1), B.i32(constant));
    }
  }

  record StringIsNull() implements Predicate {
    @Override
    public Boolean eval(Row row) {
      return row.s() == null;
    }

    @Override
    public Expression substrait(Rel input) {
      return call("is_null", N.BOOLEAN, B.fieldReference(input, 2));
    }
  }

  record Logic(String op, Predicate left, Predicate right) implements Predicate {
    @Override
    public Boolean eval(Row row) {
      Boolean l = left.eval(row);
      if (op.equals("not")) {
        return l == null ? null : !l;
      }
      Boolean r = right.eval(row);
      if (op.equals("and")) {
        return Boolean.FALSE.equals(l) || Boolean.FALSE.equals(r) ? Boolean.FALSE
            : l == null || r == null ? null : Boolean.TRUE;
      }
      return Boolean.TRUE.equals(l) || Boolean.TRUE.equals(r) ? Boolean.TRUE
          : l == null || r == null ? null : Boolean.FALSE;
    }

    @Override
    public Expression substrait(Rel input) {
      return switch (op) {
        case "not" -> call("not", N.BOOLEAN, left.substrait(input));
        case "and" -> B.and(left.substrait(input), right.substrait(input));
        default -> B.or(left.substrait(input), right.substrait(input));
      };
    }
  }

  /** What the aggregation groups by. */
  enum GroupBy { NOTHING, K, S }

  @Provide
  Arbitrary<List<Row>> rows() {
    Arbitrary<Long> k = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.just((Long) null)),
        net.jqwik.api.Tuple.of(6, Arbitraries.just(1L)),
        net.jqwik.api.Tuple.of(3, Arbitraries.longs().between(-5, 20)));
    Arbitrary<Integer> a = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.just((Integer) null)),
        net.jqwik.api.Tuple.of(1, Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, 1)),
        net.jqwik.api.Tuple.of(4, Arbitraries.integers().between(-1000, 1000)));
    Arbitrary<String> s = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.just((String) null)),
        net.jqwik.api.Tuple.of(4, Arbitraries.of("", "x", "y", "zz", "ünï")));
    return Combinators.combine(k, a, s).as(Row::new).list().ofMaxSize(300);
  }

  @Provide
  Arbitrary<Predicate> predicates() {
    return Arbitraries.<Predicate>lazyOf(
        () -> Combinators.combine(Arbitraries.of("lt", "lte", "gt", "gte", "equal", "not_equal"),
            Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, 1, 500)).as(Compare::new),
        () -> Arbitraries.just(new StringIsNull()),
        () -> predicates().map(p -> new Logic("not", p, null)),
        () -> Combinators.combine(Arbitraries.of("and", "or"), predicates(), predicates()).as(Logic::new))
        .filter(p -> depth(p) <= 3);
  }

  private static int depth(Predicate p) {
    return p instanceof Logic l ? 1 + Math.max(depth(l.left()), l.right() == null ? 0 : depth(l.right())) : 1;
  }

  /**
   * where predicate, then a projection appending {@code a * 2} (as INT64) and keeping k, a and s,
   * then group by (nothing, k or s): count(*), count(a), sum(a), min(a), max(twice).
   */
  @Property(tries = 60)
  void filterProjectAggregateMatchTheReference(@ForAll("rows") List<Row> rows, @ForAll("predicates") Predicate where,
      @ForAll GroupBy groupBy, EngineMemory memory) {
    Rel filtered = B.filter(where::substrait, B.namedScan(List.of("g"), List.of("k", "a", "s"),
        List.of(N.I64, N.I32, N.STRING)));
    Rel projected = B.project(input -> List.of(call("multiply", N.I64, B.cast(B.fieldReference(input, 1), N.I64),
        ExpressionCreator.i64(false, 2))), filtered);
    Function<Rel, Aggregate.Grouping> grouping = switch (groupBy) {
      case NOTHING -> input -> B.grouping();
      case K -> input -> B.grouping(input, 0);
      case S -> input -> B.grouping(input, 2);
    };
    Rel aggregated = B.aggregate(grouping, input -> List.of(
        B.measure(Fixture.aggregate("count", N.I64, AggregationInvocation.ALL)),
        B.measure(Fixture.aggregate("count", N.I64, AggregationInvocation.ALL, B.fieldReference(input, 1))),
        B.measure(Fixture.aggregate("sum", N.I64, AggregationInvocation.ALL, B.fieldReference(input, 1))),
        B.measure(Fixture.aggregate("min", N.I32, AggregationInvocation.ALL, B.fieldReference(input, 1))),
        B.measure(Fixture.aggregate("max", N.I64, AggregationInvocation.ALL, B.fieldReference(input, 3)))), projected);
    int fields = aggregated.getRecordType().fields().size();
    List<Object[]> data = rows.stream().map(r -> new Object[] {r.k(), r.a() == null ? null : (long) r.a(), r.s()})
        .toList();
    try (Table table = Fixture.build(List.of("k", "a", "s"), List.of(ColumnType.INT64, ColumnType.INT32,
        ColumnType.STRING), data, memory)) {
      Catalog catalog = new Catalog().register("g", table);
      List<List<Object>> actual = normalize(Fixture.rows(SubstraitPlans.execute(SubstraitPlansTest.plan(aggregated,
          java.util.stream.IntStream.range(0, fields).mapToObj(i -> "c" + i).toArray(String[]::new)), catalog,
          new ExecutionContext(memory, 2))));
      assertEquals(reference(rows, where, groupBy), actual, "where " + where + " group by " + groupBy);
    }
  }

  private static List<List<Object>> reference(List<Row> rows, Predicate where, GroupBy groupBy) {
    Map<Object, List<Row>> groups = new LinkedHashMap<>();
    if (groupBy == GroupBy.NOTHING) {
      groups.put("all", new ArrayList<>());
    }
    for (Row row : rows) {
      if (Boolean.TRUE.equals(where.eval(row))) {
        Object key = switch (groupBy) {
          case NOTHING -> "all";
          case K -> Objects.requireNonNullElse(row.k(), NULL_KEY);
          case S -> Objects.requireNonNullElse(row.s(), NULL_KEY);
        };
        groups.computeIfAbsent(key, x -> new ArrayList<>()).add(row);
      }
    }
    List<List<Object>> result = new ArrayList<>();
    groups.forEach((key, members) -> {
      List<Object> out = new ArrayList<>();
      if (groupBy != GroupBy.NOTHING) {
        out.add(key == NULL_KEY ? null : key);
      }
      List<Integer> values = members.stream().map(Row::a).filter(Objects::nonNull).toList();
      out.add((long) members.size());
      out.add((long) values.size());
      out.add(values.isEmpty() ? null : values.stream().mapToLong(Integer::longValue).sum());
      out.add(values.isEmpty() ? null : (long) values.stream().mapToInt(Integer::intValue).min().orElseThrow());
      out.add(values.isEmpty() ? null : 2L * values.stream().mapToInt(Integer::intValue).max().orElseThrow());
      result.add(out);
    });
    result.sort(ROWS);
    return result;
  }

  private static final Object NULL_KEY = new Object();

  /** Integral values as Long, rows in one order. */
  private static List<List<Object>> normalize(List<List<Object>> rows) {
    List<List<Object>> normalized = new ArrayList<>();
    for (List<Object> row : rows) {
      normalized.add(row.stream().map(v -> v instanceof Integer i ? (Object) i.longValue() : v).toList());
    }
    List<List<Object>> sorted = new ArrayList<>(normalized);
    sorted.sort(ROWS);
    return sorted;
  }

  private static final Comparator<List<Object>> ROWS = (x, y) -> String.valueOf(x).compareTo(String.valueOf(y));
}
