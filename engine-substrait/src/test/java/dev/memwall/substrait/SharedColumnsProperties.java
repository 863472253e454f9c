package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The columns a shared relation's table keeps ({@link SharedResults}): those its readers require,
 * not those only its own input reads, and consistently where one shared relation reads another
 * (the outer one's requirement reaches the inner one), against the plan with nothing shared, both
 * run: tables {@code (k, v)} with adversarial keys, values null in places, possibly empty.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class SharedColumnsProperties {
  @Property(tries = 60)
  void aSharedRelationKeepsWhatItsReadersRequireAndGivesTheSameRows(
      @ForAll("keys") @Size(max = 30) List<Long> inner, @ForAll("keys") @Size(max = 20) List<Long> outer,
      @ForAll boolean valueReadAbove, EngineMemory memory) {
    try (Table t = KeyValueTables.of(memory, "k", "v", inner); Table o = KeyValueTables.of(memory, "ko", "vo", outer)) {
      // shared #1: t's rows with a positive v; shared #2: o joined to them; v is read by #1's filter, and
      // above #2 only where valueReadAbove
      LogicalRel positive = new LogicalRel.Shared(1, new LogicalRel.Filter(LogicalRuns.scan("t", t),
          col("v").gt(lit(0L))));
      LogicalRel joined = new LogicalRel.Shared(2, new LogicalRel.Join(JoinKind.INNER, LogicalRuns.scan("o", o),
          positive, List.of("ko"), List.of("k")));
      LogicalRel read = new LogicalRel.Project(valueReadAbove ? new LogicalRel.Filter(joined, col("v").lt(lit(2L)))
          : joined, List.of(col("ko").as("ko")));
      LogicalRel counts = new LogicalRel.Aggregation(positive, List.of(col("k").as("k")),
          List.of(Aggregate.countStar("n")));
      LogicalRel plan = new LogicalRel.Join(JoinKind.INNER, read, counts, List.of("ko"), List.of("k"));

      Map<Integer, Set<String>> kept = keptColumns(plan, memory);
      assertEquals(valueReadAbove ? Set.of("k", "v") : Set.of("k"), kept.get(1), "shared #1");
      assertEquals(valueReadAbove ? Set.of("ko", "v") : Set.of("ko"), kept.get(2), "shared #2");
      assertEquals(LogicalRuns.sortedRows(memory, unshared(plan)), LogicalRuns.sortedRows(memory, plan));
    }
  }

  @Example
  void aRowCountOverASharedRelationReadingAnotherKeepsWhatItsFirstColumnNeeds(EngineMemory memory) {
    try (Table t = KeyValueTables.of(memory, "k", "v", Arrays.asList(1L, null, 2L, 2L, 3L))) {
      // nothing is read of #2 but its rows: it keeps its first column, k, which #1 must then keep as well
      LogicalRel positive = new LogicalRel.Shared(2, new LogicalRel.Filter(new LogicalRel.Shared(1,
          LogicalRuns.scan("t", t)), col("v").gt(lit(0L))));
      LogicalRel plan = new LogicalRel.Aggregation(positive, List.of(), List.of(Aggregate.countStar("n")));
      assertEquals(List.of(List.<Object>of(2L)), LogicalRuns.sortedRows(memory, plan)); // v is 1 and 2 at rows 1 and 2
      assertEquals(LogicalRuns.sortedRows(memory, unshared(plan)), LogicalRuns.sortedRows(memory, plan));
    }
  }

  /** The columns each shared relation of {@code plan} keeps, asked of {@link SharedResults} with a stand-in result. */
  private static Map<Integer, Set<String>> keptColumns(LogicalRel plan, EngineMemory memory) {
    Map<Integer, Set<String>> kept = new HashMap<>();
    try (SharedResults results = new SharedResults(plan, new LinkedHashSet<>(plan.columns()))) {
      for (int id = 1; id <= 2; id++) {
        LogicalRel.Shared shared = find(plan, id);
        results.result(shared, (input, columns) -> {
          kept.put(shared.id(), Set.copyOf(columns));
          return KeyValueTables.of(memory, "k", "v", List.of());
        });
      }
    }
    return kept;
  }

  private static LogicalRel.Shared find(LogicalRel rel, int id) {
    LogicalRel.Shared[] found = {null};
    visit(rel, node -> {
      if (node instanceof LogicalRel.Shared shared && shared.id() == id && found[0] == null) {
        found[0] = shared;
      }
    });
    return found[0];
  }

  /** {@code rel} with each shared relation replaced by its input. */
  private static LogicalRel unshared(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Shared shared -> unshared(shared.input());
      case LogicalRel.Scan scan -> scan;
      case LogicalRel.Filter f -> new LogicalRel.Filter(unshared(f.input()), f.condition());
      case LogicalRel.Project p -> new LogicalRel.Project(unshared(p.input()), p.outputs());
      case LogicalRel.Aggregation a -> new LogicalRel.Aggregation(unshared(a.input()), a.keys(), a.measures());
      case LogicalRel.Join j -> new LogicalRel.Join(j.kind(), unshared(j.left()), unshared(j.right()), j.leftKeys(),
          j.rightKeys());
      default -> throw new IllegalArgumentException("not in these plans: " + rel);
    };
  }

  /** Visits {@code rel} and every node below it. */
  private static void visit(LogicalRel rel, Consumer<LogicalRel> visit) {
    visit.accept(rel);
    switch (rel) {
      case LogicalRel.Shared shared -> visit(shared.input(), visit);
      case LogicalRel.Filter f -> visit(f.input(), visit);
      case LogicalRel.Project p -> visit(p.input(), visit);
      case LogicalRel.Aggregation a -> visit(a.input(), visit);
      case LogicalRel.Join j -> {
        visit(j.left(), visit);
        visit(j.right(), visit);
      }
      default -> { }
    }
  }

  @Provide
  Arbitrary<List<Long>> keys() {
    return KeyValueTables.keys();
  }
}
