package dev.memwall.spark;

import dev.memwall.join.common.JoinType;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * One of Spark's broadcast hash joins as memwall runs it inside a task ({@link JoinTask}): the rows Spark
 * broadcast for the build side become a memwall table with the columns {@code buildNames}, memwall's hash
 * table is built on its {@code buildKeys}, and the probe side's rows (a memwall scan's, or those of the
 * joins before this one) stream through it. Serializable, with Spark's types only, as it travels to the
 * executors.
 *
 * @param type memwall's join type, seen from the probe side (Spark's right outer join with its left side
 *     broadcast is memwall's {@code LEFT_OUTER} with Spark's right side probing)
 * @param probeKeys the probe side's key columns, by memwall column name
 * @param probeKeyTypes their Spark types (int, bigint or date)
 * @param buildSchema the Spark schema of the broadcast rows, in their order
 * @param buildNames the memwall column name of each broadcast column (unique in the whole join)
 * @param buildKeys the build side's key columns, paired with {@code probeKeys} by position
 * @param buildOutputs the build columns the join emits after the probe side's (none for semi and anti joins)
 */
record JoinProbe(JoinType type, List<String> probeKeys, List<DataType> probeKeyTypes, StructType buildSchema,
    List<String> buildNames, List<String> buildKeys, List<String> buildOutputs) implements Serializable {
  JoinProbe {
    probeKeys = List.copyOf(probeKeys);
    probeKeyTypes = List.copyOf(probeKeyTypes);
    buildNames = List.copyOf(buildNames);
    buildKeys = List.copyOf(buildKeys);
    buildOutputs = List.copyOf(buildOutputs);
  }

  /** What EXPLAIN says of it. */
  String describe() {
    return type + " join on " + probeKeys + " = " + buildKeys + " with a broadcast build side of "
        + buildNames.size() + " columns";
  }
}
