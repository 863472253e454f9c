package dev.memwall.core.temporal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * Random append sequences for temporal tables and the check of a table against {@link
 * ReferenceTable}, shared by the in-memory layouts' properties and the page-file table's: entities
 * with one and with many versions, attributes that never change, always change or change at random,
 * values and surrogates at the limits of long, first versions at {@link Long#MIN_VALUE}, times equal
 * to or before the entity's last (refused by {@link TemporalOrderException}) and at {@link
 * Long#MAX_VALUE} (refused); then every query: histories of known and unknown entities, every
 * attribute's history, and snapshots at, just before and just after every version time and at both
 * ends of time.
 */
public final class TemporalCases {
  private TemporalCases() {}

  /** How an attribute changes from one append to the next. */
  public enum Change { NEVER, ALWAYS, RANDOM }

  /** One append attempt: which entity, how far after its last time, and a value seed. */
  public record Step(int entity, long delta, long value) {}

  /** A table's shape and the append attempts to make on it. */
  public record Case(int attributes, List<Change> changes, List<Long> surrogates, List<Long> starts,
      List<Step> steps) {
    @Override
    public String toString() {
      return attributes + " attributes " + changes + ", surrogates " + surrogates + ", starts " + starts
          + ", " + steps.size() + " steps " + steps;
    }
  }

  private static final Long[] EDGE_VALUES = {Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 1L};

  /** Cases of 1-5 attributes, 1-{@code maxEntities} entities and up to {@code maxSteps} appends. */
  public static Arbitrary<Case> cases(int maxEntities, int maxSteps) {
    Arbitrary<Integer> attributes = Arbitraries.integers().between(1, 5);
    Arbitrary<Long> surrogate = Arbitraries.oneOf(Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L),
        Arbitraries.longs());
    Arbitrary<Long> start = Arbitraries.oneOf(Arbitraries.of(Long.MIN_VALUE, -1L, 0L, Long.MAX_VALUE - 2),
        Arbitraries.longs().between(-1000, 1000));
    Arbitrary<Long> delta = Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.longs().between(1, 5)),
        Tuple.of(2, Arbitraries.longs().between(-3, 0)),
        Tuple.of(1, Arbitraries.of(Long.MAX_VALUE / 2, Long.MAX_VALUE)));
    Arbitrary<Long> value = Arbitraries.oneOf(Arbitraries.of(EDGE_VALUES), Arbitraries.longs().between(0, 3),
        Arbitraries.longs());
    return attributes.flatMap(k -> Combinators.combine(
        Arbitraries.of(Change.class).list().ofSize(k),
        surrogate.list().ofMinSize(1).ofMaxSize(maxEntities).uniqueElements(),
        start.list().ofSize(maxEntities),
        Combinators.combine(Arbitraries.integers().between(0, maxEntities - 1), delta, value).as(Step::new)
            .list().ofMaxSize(maxSteps).withSizeDistribution(RandomDistribution.uniform()))
        .as((changes, surrogates, starts, steps) -> new Case(k, changes, surrogates, starts, steps)));
  }

  /**
   * Makes every append attempt of {@code c} on the reference and on every table: an accepted one
   * must be accepted by all, a refused one refused by each with the reference's exception class.
   */
  public static void replay(Case c, ReferenceTable reference, List<? extends TemporalLayout> tables) {
    long[][] current = new long[c.surrogates().size()][];
    for (Step step : c.steps()) {
      int e = step.entity() % c.surrogates().size();
      long s = c.surrogates().get(e);
      Long last = reference.lastTime(s);
      long time = last == null ? c.starts().get(e) : saturatedAdd(last, step.delta());
      long[] values = nextValues(c, current[e], step.value());
      if (reference.accepts(s, time)) {
        reference.append(s, time, values);
        current[e] = values;
        for (TemporalLayout table : tables) {
          table.append(s, time, values);
        }
      } else {
        Class<? extends IllegalArgumentException> refusal =
            reference.outOfOrder(s, time) ? TemporalOrderException.class : IllegalArgumentException.class;
        for (TemporalLayout table : tables) {
          IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class, () -> table.append(s, time, values));
          assertEquals(refusal, e2.getClass(), e2.getMessage());
        }
      }
    }
  }

  /** Asks {@code table} every query of the class comment and compares it with {@code reference}. */
  public static void check(ReferenceTable reference, TemporalLayout table, Case c) {
    String name = table.kind().toString();
    assertEquals(reference.snapshot(Long.MAX_VALUE).size(), table.entities(), name);
    List<Long> asked = new ArrayList<>(c.surrogates());
    asked.add(42L);
    for (long s : asked) {
      assertEquals(reference.history(s), table.history(s), name + " history of " + s);
      for (int a = 0; a < c.attributes(); a++) {
        assertEquals(reference.attributeHistory(s, a), table.attributeHistory(s, a),
            name + " history of attribute " + a + " of " + s);
      }
    }
    TreeSet<Long> times = new TreeSet<>(List.of(Long.MIN_VALUE, Long.MAX_VALUE));
    for (long t : reference.times()) {
      times.add(t);
      times.add(t == Long.MIN_VALUE ? t : t - 1);
      times.add(t == Long.MAX_VALUE ? t : t + 1);
    }
    for (long t : times) {
      Snapshot expected = reference.snapshot(t);
      Snapshot actual = table.snapshot(t);
      assertArrayEquals(expected.surrogates(), actual.surrogates(), name + " alive at " + t);
      assertArrayEquals(expected.values(), actual.values(), name + " state at " + t);
    }
  }

  /** The most versions any entity of {@code c} holds in {@code reference}, for statistics. */
  public static int mostVersions(Case c, ReferenceTable reference) {
    return c.surrogates().stream().mapToInt(s -> reference.history(s).size()).max().orElse(0);
  }

  private static long[] nextValues(Case c, long[] current, long seed) {
    long[] values = new long[c.attributes()];
    for (int a = 0; a < c.attributes(); a++) {
      long fresh = seed * (a + 1) + a;
      values[a] = current == null ? fresh : switch (c.changes().get(a)) {
        case NEVER -> current[a];
        case ALWAYS -> current[a] == fresh ? fresh + 1 : fresh;
        case RANDOM -> (seed & (1L << a)) == 0 ? current[a] : fresh;
      };
    }
    return values;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
