package dev.memwall.spark;

import java.math.BigInteger;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.TakeOrderedAndProjectExec;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Replaces Spark's {@code Sort} by a {@link MemwallSortExec} and its {@code TakeOrderedAndProject} by a
 * {@link MemwallTakeOrderedExec} wherever memwall sorts the rows as Spark orders them ({@link SortSpec});
 * a full sort also needs an input adaptive execution has measured small enough ({@link #tooBigToSort}), a
 * top-N keeps only its rows. Leaves the operator to Spark otherwise, with the reason ({@link OperatorRule}).
 *
 * <p>Thread safety: stateless; Spark may apply it from several threads.
 */
final class SortRule extends OperatorRule {
  /** Whether {@value MemwallSettings#SORTS} is on when not set. */
  static final boolean BY_DEFAULT = false;

  SortRule() {
    super(MemwallSettings.SORTS, BY_DEFAULT);
  }

  @Override
  SparkPlan replace(SparkPlan node) {
    SparkPlan child;
    scala.collection.immutable.Seq<SortOrder> sortOrder;
    if (node instanceof SortExec sort) {
      child = sort.child();
      sortOrder = sort.sortOrder();
    } else if (node instanceof TakeOrderedAndProjectExec take) {
      child = take.child();
      sortOrder = take.sortOrder();
    } else {
      return node;
    }
    List<Attribute> input = CollectionConverters.asJava(child.output());
    List<SortOrder> order = CollectionConverters.asJava(sortOrder);
    SortSpec.Result translation = SortSpec.of(input, order);
    if (translation.spec() == null) {
      return leave(node, translation.reason());
    }
    long memory = taskMemoryBytes();
    if (node instanceof SortExec) {
      String tooBig = tooBigToSort(child, memory);
      if (tooBig != null) {
        return leave(node, tooBig);
      }
    }
    String description = translation.spec().describe();
    return inPlaceOf(node, node instanceof TakeOrderedAndProjectExec take
        ? new MemwallTakeOrderedExec(take.projectList(), child, new SortTask(input, order, take.limit(), 0, memory),
            new SortTask(input, order, take.limit(), take.offset(), memory), description + ", limit " + take.limit()
            + (take.offset() > 0 ? ", offset " + take.offset() : ""))
        : new MemwallSortExec(sortOrder, child, new SortTask(input, order, -1, 0, memory), description));
  }

  /**
   * Why a full sort of {@code child}'s rows might not fit a task's memwall memory, or null when it fits:
   * memwall's sort spills its runs but builds its sorted result whole, so it takes only an input whose size
   * adaptive execution has measured (a finished shuffle stage, read whole or in part) and found at most a
   * quarter of {@code taskMemoryBytes} in all.
   */
  static String tooBigToSort(SparkPlan child, long taskMemoryBytes) {
    SparkPlan stage = child instanceof AQEShuffleReadExec read ? read.child() : child;
    if (!(stage instanceof QueryStageExec measured) || !measured.isMaterialized()) {
      return "the sort's input size is not known before it runs, and memwall builds a sort's result whole";
    }
    BigInteger bytes = measured.getRuntimeStatistics().sizeInBytes().bigInteger();
    if (bytes.compareTo(BigInteger.valueOf(taskMemoryBytes / 4)) > 0) {
      return "the sort's input (" + bytes + " bytes) may not fit a quarter of a task's memwall memory ("
          + taskMemoryBytes + " bytes, " + MemwallSettings.TASK_MEMORY + "), and memwall builds a sort's result whole";
    }
    return null;
  }
}
