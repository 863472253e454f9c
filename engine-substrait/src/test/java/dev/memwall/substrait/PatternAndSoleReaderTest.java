package dev.memwall.substrait;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;
import static dev.memwall.substrait.LogicalRuns.ids;
import static dev.memwall.substrait.LogicalRuns.scan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.logical.Explain;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import dev.memwall.substrait.optimizer.CardinalityEstimator;
import dev.memwall.substrait.optimizer.CommonSubtrees;
import dev.memwall.substrait.optimizer.SoleReader;
import dev.memwall.substrait.optimizer.TableStatistics;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link CommonSubtrees} sharing a scan filtered by a LIKE pattern that two semi joins read (TPC-H
 * Q9's and Q20's parts named like a color), and {@link SoleReader} computing a shared relation with
 * one reader in place, each against the plan it rewrites, both run.
 */
@ExtendWith(LeakCheck.class)
class PatternAndSoleReaderTest {
  private static final CardinalityEstimator LARGE = new CardinalityEstimator(
      scan -> TableStatistics.supplied(1e6, Map.of()));

  @Test
  void partsFoundByAPatternForTwoSemiJoinsAreFoundOnce(EngineMemory memory) {
    try (Table parts = parts(memory); Table t = KeyValueTables.of(memory, "k", "v", List.of(1L, 2L, 3L, 3L, 4L))) {
      LogicalRel plan = new LogicalRel.Cross(semiJoined(t, parts, ""), semiJoined(t, parts, "2"));
      LogicalRel rewritten = CommonSubtrees.rewrite(plan, LARGE, ids());
      String text = Explain.of(rewritten);
      assertTrue(text.contains("shared #1 (as above)") && text.indexOf("Like[") == text.lastIndexOf("Like["), text);
      assertEquals(LogicalRuns.sortedRows(memory, plan), LogicalRuns.sortedRows(memory, rewritten));
      LogicalRel otherFilter = new LogicalRel.Cross(semiJoined(t, parts, ""), new LogicalRel.Join(JoinKind.SEMI,
          scan("t", t, "2"), new LogicalRel.Filter(partScan(parts, "2"), col("pk2").gt(lit(0L))), List.of("k2"),
          List.of("pk2")));
      assertEquals(otherFilter, CommonSubtrees.rewrite(otherFilter, LARGE, ids()), "a comparison is read again");
    }
  }

  @Test
  void aSharedRelationReadOnceIsComputedInPlaceAndOneReadTwiceStaysShared(EngineMemory memory) {
    try (Table parts = parts(memory); Table t = KeyValueTables.of(memory, "k", "v", List.of(1L, 2L, 3L, 3L, 4L))) {
      LogicalRel.Shared once = new LogicalRel.Shared(1, semiJoined(t, parts, ""));
      LogicalRel onlyReader = new LogicalRel.Filter(once, Expr.not(Expr.isNull(col("v"))));
      LogicalRel inlined = SoleReader.rewrite(onlyReader);
      assertFalse(Explain.of(inlined).contains("shared"), Explain.of(inlined));
      assertEquals(LogicalRuns.sortedRows(memory, onlyReader), LogicalRuns.sortedRows(memory, inlined));

      LogicalRel.Shared inner = new LogicalRel.Shared(1, semiJoined(t, parts, ""));
      LogicalRel.Shared outer = new LogicalRel.Shared(2, new LogicalRel.Filter(inner, Expr.not(Expr.isNull(col("v")))));
      LogicalRel outerTwice = new LogicalRel.Cross(outer, new LogicalRel.Project(outer, List.of(col("k").as("k2"))));
      String nested = Explain.of(SoleReader.rewrite(outerTwice));
      assertTrue(nested.contains("shared #2 (as above)") && !nested.contains("shared #1"),
          "#1 is read once, by #2's one computation\n" + nested);
      LogicalRel besideInner = new LogicalRel.Project(inner, List.of(col("k").as("k3")));
      LogicalRel bothTwice = new LogicalRel.Cross(outerTwice, besideInner);
      assertEquals(bothTwice, SoleReader.rewrite(bothTwice), "#1 is read by #2 and beside it, #2 at two places");
      LogicalRel outerOnce = new LogicalRel.Cross(outer, besideInner);
      String oneOuter = Explain.of(SoleReader.rewrite(outerOnce));
      assertTrue(!oneOuter.contains("shared #2") && oneOuter.contains("shared #1 (as above)"), oneOuter);
      assertEquals(LogicalRuns.sortedRows(memory, outerOnce), LogicalRuns.sortedRows(memory, SoleReader.rewrite(outerOnce)));
    }
  }

  /** {@code t}'s rows (columns suffixed {@code suffix}) whose key is a part named like 'forest%'. */
  private static LogicalRel semiJoined(Table t, Table parts, String suffix) {
    LogicalRel named = new LogicalRel.Project(new LogicalRel.Filter(partScan(parts, suffix),
        col("name" + suffix).like("forest%")), List.of(col("pk" + suffix).as("pk" + suffix)));
    return new LogicalRel.Join(JoinKind.SEMI, scan("t", t, suffix), named, List.of("k" + suffix),
        List.of("pk" + suffix));
  }

  private static LogicalRel.Scan partScan(Table parts, String suffix) {
    return new LogicalRel.Scan("p", parts, List.of("pk", "name"), List.of("pk" + suffix, "name" + suffix));
  }

  private static Table parts(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("pk", "name"), List.of(ColumnType.INT64, ColumnType.STRING),
        memory.arrow())) {
      String[] names = {"forest green", "red", "forest", "a forest", "forestry"};
      for (int i = 0; i < names.length; i++) {
        builder.appendLong(i + 1);
        builder.appendString(names[i].getBytes(StandardCharsets.UTF_8));
        builder.endRow();
      }
      return builder.build();
    }
  }
}
