package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.memwall.core.Closing;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.Explain;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.optimizer.ForeignKey;
import dev.memwall.substrait.optimizer.ForeignKeySemiJoin;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import net.jqwik.api.ForAll;
import net.jqwik.api.Example;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.WithNull;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * {@link ForeignKeySemiJoin} against the plans it rewrites, both run, in TPC-H Q20's shape: lines
 * {@code (lp, ls, lv)} whose {@code (lp, ls)} reference the key {@code (pp, ps)} of {@code p},
 * semi-joined on it with the rows of {@code p} whose {@code pp} are among the chosen {@code y}.
 * The data keep the declared foreign key (the rewrite relies on it); lines repeat references, the
 * chosen keys repeat, are null and dangling, values are null in places, any table may be empty.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class ForeignKeySemiJoinProperties {
  private static final Function<LogicalRel.Scan, List<ForeignKey>> DECLARED = scan -> scan.table().equals("l")
      ? List.of(new ForeignKey(List.of("lp", "ls"), "p", List.of("pp", "ps"))) : List.of();

  @Property(tries = 80)
  void aSemiJoinOnTheForeignKeyBecomesOneOnItsPartWithTheSameRows(
      @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 4) Integer> partKeys,
      @ForAll @Size(max = 30) List<@IntRange(min = 0, max = 40) Integer> references,
      @ForAll @Size(max = 6) List<@WithNull(0.2) @IntRange(min = 0, max = 6) Integer> chosen,
      @ForAll boolean shared, EngineMemory memory) {
    try (Tables t = Tables.of(memory, partKeys, references, chosen)) {
      LogicalRel plan = t.plan(shared, t.p(), List.of("lp", "ls"), List.of("pp", "ps"));
      LogicalRel rewritten = ForeignKeySemiJoin.rewrite(plan, DECLARED);
      assertNotEquals(plan, rewritten);
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
    }
  }

  @Example
  void anUndeclaredKeyOtherPairsOrAFilteredReferencedTableAreLeftAlone(EngineMemory memory) {
    try (Tables t = Tables.of(memory, List.of(1, 2), List.of(0, 1, 3), List.of(1))) {
      LogicalRel declared = t.plan(false, t.p(), List.of("lp", "ls"), List.of("pp", "ps"));
      assertEquals(declared, ForeignKeySemiJoin.rewrite(declared, scan -> List.of()), "no foreign key declared");
      assertEquals(declared, ForeignKeySemiJoin.rewrite(declared, scan -> scan.table().equals("l")
          ? List.of(new ForeignKey(List.of("lp"), "p", List.of("pp"))) : List.of()), "a key of one column only");
      List<LogicalRel> kept = List.of(
          t.plan(false, t.p(), List.of("ls", "lp"), List.of("pp", "ps")), // the pairs cross the key's
          t.plan(false, new LogicalRel.Filter(t.p(), col("ps").gt(lit(0L))), List.of("lp", "ls"),
              List.of("pp", "ps"))); // p is filtered: a reference to a dropped row has no match
      for (LogicalRel plan : kept) {
        assertEquals(plan, ForeignKeySemiJoin.rewrite(plan, DECLARED), Explain.of(plan));
      }
    }
  }

  /** The three tables: p's keys are its draws' distinct pairs, each line references the pair its draw picks. */
  private record Tables(Table lines, Table parts, Table chosen) implements AutoCloseable {
    static Tables of(EngineMemory memory, List<Integer> partKeys, List<Integer> references, List<Integer> chosen) {
      Set<List<Long>> keys = new LinkedHashSet<>();
      for (int i = 0; i < partKeys.size(); i++) {
        keys.add(List.of((long) partKeys.get(i), (long) (i % 3)));
      }
      List<List<Long>> pairs = new ArrayList<>(keys);
      List<Object[]> partRows = pairs.stream().map(pair -> new Object[] {pair.get(0), pair.get(1)}).toList();
      List<Object[]> lineRows = new ArrayList<>();
      for (int i = 0; pairs.size() > 0 && i < references.size(); i++) {
        List<Long> pair = pairs.get(references.get(i) % pairs.size());
        lineRows.add(new Object[] {pair.get(0), pair.get(1), i % 4 == 3 ? null : (long) (i % 5)});
      }
      List<Object[]> chosenRows = chosen.stream().map(key -> new Object[] {key == null ? null : (long) key}).toList();
      List<ColumnType> two = List.of(ColumnType.INT64, ColumnType.INT64);
      return new Tables(
          Fixture.build(List.of("lp", "ls", "lv"), List.of(ColumnType.INT64, ColumnType.INT64, ColumnType.INT64),
              lineRows, memory),
          Fixture.build(List.of("pp", "ps"), two, partRows, memory),
          Fixture.build(List.of("y"), List.of(ColumnType.INT64), chosenRows, memory));
    }

    LogicalRel p() {
      return LogicalRuns.scan("p", parts);
    }

    /**
     * The lines with a value (filtered) semi-joined on {@code lineKeys = partKeys} with {@code p}'s rows
     * ({@code parts}) whose {@code pp} is chosen, those as a shared relation where {@code shared}.
     */
    LogicalRel plan(boolean shared, LogicalRel parts, List<String> lineKeys, List<String> partKeys) {
      LogicalRel kept = new LogicalRel.Join(JoinKind.SEMI, parts, LogicalRuns.scan("y", chosen), List.of("pp"),
          List.of("y"));
      return new LogicalRel.Join(JoinKind.SEMI, new LogicalRel.Filter(LogicalRuns.scan("l", lines),
          col("lv").ge(lit(1L))), shared ? new LogicalRel.Shared(1, kept) : kept, lineKeys, partKeys);
    }

    @Override
    public void close() {
      Closing.closeAll(List.of(lines, parts, chosen));
    }
  }
}
