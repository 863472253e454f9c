package dev.memwall.spark;

import dev.memwall.join.common.JoinType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.optimizer.BuildRight$;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.LeftSemi$;
import org.apache.spark.sql.catalyst.plans.RightOuter$;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Replaces Spark's broadcast hash joins whose streamed side is a memwall scan by a
 * {@link MemwallHashJoinExec}: {@code BroadcastHashJoin(ColumnarToRow(BatchScan(memwall)), build)}, and a
 * broadcast hash join over one memwall already runs (through a projection that only keeps columns), which
 * joins the same pipeline. Works bottom-up, after Spark inserted its columnar transitions, on every query
 * stage, unless {@value MemwallSettings#ACCELERATION} or its own switch ({@link MemwallSettings}) is off.
 *
 * <p>What memwall runs: inner joins, left outer, left semi and left anti joins with the right side
 * broadcast, and right outer joins with the left side broadcast (memwall's left outer join probing with
 * the right side); equi-joins on columns (no expression) of int, bigint or date, pairs of the same type;
 * a build side whose columns memwall copies ({@link RowTables}). What it leaves to Spark, logging why (at
 * INFO, logger {@code dev.memwall.spark}) and tagging the join with the reason
 * ({@link PartialAggregateRule#FALLBACK}, shown by {@link MemwallExtensions#explain}): an extra join
 * condition, a null-aware anti join ({@code NOT IN}), other join types, keys of other types or computed
 * keys (Spark's normalized floating-point keys among them), and a streamed side that is not a memwall scan
 * (or is one with runtime filters or a key-grouped partitioning).
 *
 * <p>Thread safety: stateless; Spark may apply it from several threads.
 */
final class BroadcastJoinRule extends Rule<SparkPlan> {
  /** Whether {@value MemwallSettings#JOINS} is on when not set. */
  static final boolean BY_DEFAULT = false;

  @Override
  public SparkPlan apply(SparkPlan plan) {
    return MemwallSettings.enabled(conf(), MemwallSettings.JOINS, BY_DEFAULT) ? rewrite(plan) : plan;
  }

  private SparkPlan rewrite(SparkPlan plan) {
    SparkPlan node = PlanChildren.map(plan, this::rewrite);
    return node instanceof BroadcastHashJoinExec join ? replace(join) : node;
  }

  /** The probe side a join streams: what it reads, and the memwall column of each attribute it has. */
  private record Probe(MemwallScan scan, MemwallHashJoinExec joins, List<String> readColumns,
      Map<Long, String> names) {}

  private SparkPlan replace(BroadcastHashJoinExec join) {
    boolean buildRight = join.buildSide() == BuildRight$.MODULE$;
    SparkPlan streamed = buildRight ? join.left() : join.right();
    SparkPlan build = buildRight ? join.right() : join.left();
    String reason = reasonNotToJoin(join, buildRight);
    Probe probe = null;
    if (reason == null) {
      probe = probeOf(streamed);
      if (probe == null) {
        reason = "the streamed side is " + streamed.nodeName() + ", not a memwall scan or join";
      }
    }
    if (reason == null) {
      reason = keysReason(join, buildRight);
    }
    if (reason != null) {
      return OperatorRule.leave(join, reason);
    }
    return new ColumnarToRowExec(joined(join, buildRight, build, probe));
  }

  /** Why memwall does not run {@code join} whatever its input, or null. */
  private static String reasonNotToJoin(BroadcastHashJoinExec join, boolean buildRight) {
    if (join.isNullAwareAntiJoin()) {
      return "a null-aware anti join (NOT IN), whose null keys memwall does not handle";
    }
    if (join.condition().isDefined()) {
      return "an extra join condition " + join.condition().get().sql();
    }
    if (type(join, buildRight) == null) {
      return "join type " + join.joinType() + " with the " + (buildRight ? "right" : "left") + " side broadcast";
    }
    for (Attribute column : CollectionConverters.asJava((buildRight ? join.right() : join.left()).output())) {
      if (!RowTables.supports(column.dataType())) {
        return "build column " + column.name() + " of type " + column.dataType().simpleString();
      }
    }
    return null;
  }

  /** memwall's join type of {@code join}, seen from its streamed side; null for those memwall does not run. */
  private static JoinType type(BroadcastHashJoinExec join, boolean buildRight) {
    Object type = join.joinType();
    if (type == Inner$.MODULE$) {
      return JoinType.INNER;
    } else if (buildRight && type == LeftOuter$.MODULE$ || !buildRight && type == RightOuter$.MODULE$) {
      return JoinType.LEFT_OUTER;
    } else if (buildRight && type == LeftSemi$.MODULE$) {
      return JoinType.SEMI;
    } else if (buildRight && type == LeftAnti$.MODULE$) {
      return JoinType.ANTI;
    }
    return null;
  }

  /** Why memwall cannot join on {@code join}'s keys, or null. */
  private static String keysReason(BroadcastHashJoinExec join, boolean buildRight) {
    List<Expression> left = CollectionConverters.asJava(join.leftKeys());
    List<Expression> right = CollectionConverters.asJava(join.rightKeys());
    for (int i = 0; i < left.size(); i++) {
      for (Expression key : List.of(left.get(i), right.get(i))) {
        if (!(key instanceof AttributeReference)) {
          return "join key " + key.sql() + " is computed, not a column";
        }
        if (!isKeyType(key.dataType())) {
          return "join key " + key.sql() + " of type " + key.dataType().simpleString()
              + " (memwall joins on int, bigint and date)";
        }
      }
      if (!left.get(i).dataType().equals(right.get(i).dataType())) {
        return "join keys " + left.get(i).sql() + " and " + right.get(i).sql() + " differ in type";
      }
    }
    return null;
  }

  private static boolean isKeyType(DataType type) {
    return DataTypes.IntegerType.equals(type) || DataTypes.LongType.equals(type) || DataTypes.DateType.equals(type);
  }

  /** The memwall probe side of a join streaming {@code streamed}, or null when memwall does not run it. */
  private static Probe probeOf(SparkPlan streamed) {
    SparkPlan plan = streamed;
    if (plan instanceof ProjectExec project && CollectionConverters.asJava(project.projectList()).stream()
        .allMatch(column -> column instanceof AttributeReference)) {
      plan = project.child(); // only keeps columns: memwall's pipeline carries the others along
    }
    if (!(plan instanceof ColumnarToRowExec toRows)) {
      return null;
    }
    if (toRows.child() instanceof MemwallHashJoinExec joins) {
      Map<Long, String> names = new HashMap<>();
      List<Attribute> output = CollectionConverters.asJava(joins.output());
      for (int i = 0; i < output.size(); i++) {
        names.put(output.get(i).exprId().id(), joins.task().outputNames().get(i));
      }
      return new Probe(joins.scan(), joins, joins.task().readColumns(), names);
    }
    if (toRows.child() instanceof BatchScanExec batchScan && batchScan.scan() instanceof MemwallScan scan
        && batchScan.runtimeFilters().isEmpty() && batchScan.keyGroupedPartitioning().isEmpty()) {
      Map<Long, String> names = new HashMap<>();
      List<String> read = new ArrayList<>();
      for (Attribute column : CollectionConverters.asJava(batchScan.output())) {
        names.put(column.exprId().id(), column.name());
        read.add(column.name());
      }
      return new Probe(scan, null, read, names);
    }
    return null;
  }

  /** The memwall join replacing {@code join}, over {@code probe}. */
  private static MemwallHashJoinExec joined(BroadcastHashJoinExec join, boolean buildRight, SparkPlan build,
      Probe probe) {
    JoinType type = type(join, buildRight);
    Map<Long, String> names = new HashMap<>(probe.names());
    List<String> buildNames = new ArrayList<>();
    List<StructField> buildFields = new ArrayList<>();
    for (Attribute column : CollectionConverters.asJava(build.output())) {
      String name = column.name() + "#" + column.exprId().id(); // unique beside the probe side's file columns
      names.put(column.exprId().id(), name);
      buildNames.add(name);
      buildFields.add(DataTypes.createStructField(name, column.dataType(), true));
    }
    List<String> probeKeys = new ArrayList<>();
    List<DataType> probeKeyTypes = new ArrayList<>();
    for (Expression key : CollectionConverters.asJava(buildRight ? join.leftKeys() : join.rightKeys())) {
      probeKeys.add(names.get(((NamedExpression) key).exprId().id()));
      probeKeyTypes.add(key.dataType());
    }
    List<String> buildKeys = new ArrayList<>();
    for (Expression key : CollectionConverters.asJava(buildRight ? join.rightKeys() : join.leftKeys())) {
      buildKeys.add(names.get(((NamedExpression) key).exprId().id()));
    }
    boolean semiOrAnti = type == JoinType.SEMI || type == JoinType.ANTI;
    JoinProbe next = new JoinProbe(type, probeKeys, probeKeyTypes, DataTypes.createStructType(buildFields),
        buildNames, buildKeys, semiOrAnti ? List.of() : buildNames);
    List<String> outputNames = CollectionConverters.asJava(join.output()).stream()
        .map(column -> names.get(column.exprId().id())).toList();

    MemwallScan scan = probe.scan();
    List<JoinProbe> probes = new ArrayList<>();
    List<SparkPlan> builds = new ArrayList<>();
    if (probe.joins() != null) {
      probes.addAll(probe.joins().task().probes());
      builds.addAll(CollectionConverters.asJava(probe.joins().children()));
    }
    probes.add(next);
    builds.add(build);
    JoinTask task = new JoinTask(scan.files().schema(), probe.readColumns(), scan.pushed().toArray(Predicate[]::new),
        probes, List.of(), outputNames, scan.taskMemoryBytes());
    String description = ScanTasks.describe(scan) + ", " + probes.stream().map(JoinProbe::describe).toList();
    return OperatorRule.inPlaceOf(join, new MemwallHashJoinExec(join.output(), scan, task,
        CollectionConverters.asScala(builds).toList(), description));
  }
}
