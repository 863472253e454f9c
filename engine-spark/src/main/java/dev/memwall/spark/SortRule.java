package dev.memwall.spark;

import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.TakeOrderedAndProjectExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Replaces Spark's {@code Sort} by a {@link MemwallSortExec} and its {@code TakeOrderedAndProject} by a
 * {@link MemwallTakeOrderedExec} wherever memwall sorts the rows as Spark orders them ({@link SortSpec}), whatever
 * their number: memwall's sort spills within a bound of memory and hands its result out a part at a time
 * ({@link SortTask}). Leaves the operator to Spark otherwise, with the reason ({@link OperatorRule}).
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
    String description = translation.spec().describe();
    return inPlaceOf(node, node instanceof TakeOrderedAndProjectExec take
        ? new MemwallTakeOrderedExec(take.projectList(), child, new SortTask(input, order, take.limit(), 0, memory),
            new SortTask(input, order, take.limit(), take.offset(), memory), description + ", limit " + take.limit()
            + (take.offset() > 0 ? ", offset " + take.offset() : ""))
        : new MemwallSortExec(sortOrder, child, new SortTask(input, order, -1, 0, memory), description));
  }
}
