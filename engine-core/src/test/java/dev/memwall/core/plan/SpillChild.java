package dev.memwall.core.plan;

import static dev.memwall.core.expr.Expr.col;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.vector.Table;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

/**
 * The child JVM of {@link SpillCrashTest}: spills under the root it is given until it is killed.
 * It holds one spill directory with a file for its whole life (so that a kill at any moment leaves
 * something to sweep) and runs spilling aggregations and sorts, two threads each, in a loop,
 * printing {@code ready} once the held directory exists and {@code round N} after each query.
 * A failure (its spill files swept under it, for one) ends it with exit code 3.
 */
public final class SpillChild {
  private SpillChild() {}

  public static void main(String[] args) {
    Path root = Path.of(args[0]);
    try (EngineMemory memory = EngineMemory.create("spill child");
         Table table = SpillTestData.table(memory, 11, 200_000, 100_000, false);
         SpillDirectory held = SpillDirectory.create(root, Long.MAX_VALUE, "held")) {
      held.newFile("held").append(MemorySegment.ofArray(new byte[4096]));
      System.out.println("ready");
      ExecutionContext context = ExecutionContext.builder(memory).threads(2).memoryLimit(2 << 20)
          .spillDirectory(root).build();
      for (int round = 0; ; round++) {
        Plan plan = round % 2 == 0
            ? Plan.scan(table).aggregate(List.of(col("k").as("k"), col("s").as("s")), Aggregate.countStar("rows"))
            : Plan.scan(table).orderBy(SortKey.asc("s"), SortKey.desc("k"));
        plan.execute(context).close();
        System.out.println("round " + round);
      }
    } catch (RuntimeException e) {
      e.printStackTrace(System.out);
      System.exit(3);
    }
  }
}
