package dev.memwall.spark;

import java.util.Map;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.SparkSession;

/**
 * The settings of memwall on Spark: read options of {@code spark.read.format("memwall")} and Spark SQL
 * configuration keys. A read option wins over the session's configuration, which wins over the default.
 *
 * <ul>
 *   <li>{@value #TABLE} (read option): the table of a directory holding several, such as a memwall TPC-H
 *       data set ({@code lineitem} reads {@code lineitem-1.arrow}, {@code lineitem-2.arrow}, ...).
 *   <li>{@value #TASK_MEMORY} (configuration) or {@value #TASK_MEMORY_OPTION} (read option): the most
 *       execution memory memwall's work in a task may hold, asked of Spark as its operators need it (a
 *       Spark size such as {@code 512m}; default {@value #DEFAULT_TASK_MEMORY}); Spark's own share per
 *       task bounds it too. See {@link TaskMemoryLease}.
 *   <li>{@value #ACCELERATION} (configuration): whether {@link MemwallExtensions}, when installed, replaces
 *       Spark operators by memwall's (default true); set it to false to run the same session without.
 *   <li>{@value #JOINS}, {@value #PARTIAL_AGGREGATION}, {@value #FINAL_AGGREGATION} and {@value #SORTS}
 *       (configuration): each kind of operator on its own, under {@value #ACCELERATION}. The defaults are
 *       what measured faster than Spark's own operators on TPC-H (docs/benchmarks/spark.md).
 * </ul>
 *
 * <p>Bad input: a size Spark cannot parse or a negative size throws {@link IllegalArgumentException}
 * naming the setting. Thread safety: stateless.
 */
public final class MemwallSettings {
  /** The read option naming a table in a directory of several. */
  public static final String TABLE = "table";
  /** The configuration key of the most memory memwall's work in a task may hold. */
  public static final String TASK_MEMORY = "spark.memwall.task.memory";
  /** The read option overriding {@link #TASK_MEMORY} for one read. */
  public static final String TASK_MEMORY_OPTION = "taskMemory";
  /**
   * The default of {@link #TASK_MEMORY}: a bound, not a share taken up front, so it can be larger than a
   * task usually needs; a partial aggregation of millions of groups per task wants hundreds of MiB.
   */
  public static final String DEFAULT_TASK_MEMORY = "1g";

  /** The Spark configuration key of the memory an executor's shared broadcast join builds may hold. */
  public static final String EXECUTOR_BROADCAST_MEMORY = "spark.memwall.executor.broadcastMemory";
  /** The default of {@link #EXECUTOR_BROADCAST_MEMORY}. */
  public static final String DEFAULT_EXECUTOR_BROADCAST_MEMORY = "256m";

  /** The configuration key switching the installed {@link MemwallExtensions} on and off. */
  public static final String ACCELERATION = "spark.memwall.acceleration.enabled";

  /** Whether memwall runs broadcast hash joins over its scans ({@link BroadcastJoinRule}). */
  public static final String JOINS = "spark.memwall.acceleration.joins.enabled";
  /** Whether memwall runs partial aggregations over its scans ({@link PartialAggregateRule}). */
  public static final String PARTIAL_AGGREGATION = "spark.memwall.acceleration.partialAggregation.enabled";
  /** Whether memwall runs final aggregations ({@link FinalAggregateRule}). */
  public static final String FINAL_AGGREGATION = "spark.memwall.acceleration.finalAggregation.enabled";
  /** Whether memwall runs sorts and top-N ({@link SortRule}). */
  public static final String SORTS = "spark.memwall.acceleration.sorts.enabled";

  private MemwallSettings() {}

  /**
   * Whether the operators of the switch {@code operators} are memwall's in a session of {@code conf}: both
   * {@value #ACCELERATION} and {@code operators} are on ({@code byDefault} where it is not set).
   */
  static boolean enabled(org.apache.spark.sql.internal.SQLConf conf, String operators, boolean byDefault) {
    return Boolean.parseBoolean(conf.getConfString(ACCELERATION, "true"))
        && Boolean.parseBoolean(conf.getConfString(operators, Boolean.toString(byDefault)));
  }

  /**
   * The most bytes memwall's work in a task may hold: the read option, else the active session's
   * configuration, else the default.
   */
  static long taskMemoryBytes(Map<String, String> options) {
    String value = options.get(TASK_MEMORY_OPTION);
    String source = TASK_MEMORY_OPTION;
    if (value == null) {
      source = TASK_MEMORY;
      value = SparkSession.getActiveSession().isDefined()
          ? SparkSession.getActiveSession().get().conf().get(TASK_MEMORY, DEFAULT_TASK_MEMORY)
          : DEFAULT_TASK_MEMORY;
    }
    return parseBytes(source, value);
  }

  /**
   * The bytes an executor's shared broadcast join builds may hold ({@link BroadcastBuilds}): the
   * executor's Spark configuration {@code conf} (null: none), else the default.
   */
  static long executorBroadcastBytes(org.apache.spark.SparkConf conf) {
    String value = conf == null ? DEFAULT_EXECUTOR_BROADCAST_MEMORY
        : conf.get(EXECUTOR_BROADCAST_MEMORY, DEFAULT_EXECUTOR_BROADCAST_MEMORY);
    return parseBytes(EXECUTOR_BROADCAST_MEMORY, value);
  }

  /** A Spark size ({@code 64m}, {@code 1g}, {@code 1048576}) in bytes. */
  static long parseBytes(String setting, String value) {
    long bytes;
    try {
      bytes = JavaUtils.byteStringAsBytes(value.trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("memwall setting " + setting + " = '" + value
          + "' is not a size (such as 64m or 1g)", e);
    }
    if (bytes < 0) {
      throw new IllegalArgumentException("memwall setting " + setting + " = '" + value + "' is negative");
    }
    return bytes;
  }
}
