import dev.memwall.spark.MemwallExtensions;
import dev.memwall.spark.MemwallSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * Times a large sort in Spark with memwall's sort and with Spark's own, alternately, in one JVM: lineitem's
 * rows through the memwall connector, ordered, and consumed by Spark's "noop" sink (nothing is collected).
 * Each round times one run of each, after one warm-up run of each; prints each round's milliseconds and
 * ratio (memwall / Spark), then the median ratio and the spread.
 *
 * <p>Usage: tpch/tools/java.sh tpch/tools/spark-sort/SparkSortSpill.java DATA_DIR THREADS ROUNDS TASK_MEMORY
 * (DATA_DIR: a TPC-H data set of ./memwall tpch, such as ~/.cache/memwall/tpch/sf1; TASK_MEMORY: memwall's
 * spark.memwall.task.memory, such as 256m: its sort spills past half of it, or past 128 MiB).
 */
public class SparkSortSpill {
  static final String SQL = "select l_orderkey, l_partkey, l_extendedprice, l_shipdate" + System.getProperty("sort.extra", ", l_comment") + " from lineitem"
      + " order by l_extendedprice desc, l_orderkey, l_partkey";

  public static void main(String[] args) {
    String data = args[0];
    int threads = Integer.parseInt(args[1]);
    int rounds = Integer.parseInt(args[2]);
    SparkSession spark = SparkSession.builder().master("local[" + threads + "]").appName("sort spill")
        .config("spark.sql.extensions", MemwallExtensions.class.getName())
        .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", Integer.toString(threads))
        .config(MemwallSettings.SORTS, "true").config(MemwallSettings.TASK_MEMORY, args[3])
        .getOrCreate();
    try {
      spark.read().format("memwall").option(MemwallSettings.TABLE, "lineitem").load(data)
          .createOrReplaceTempView("lineitem");
      run(spark, true);
      run(spark, false);
      List<Double> ratios = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        long memwall = run(spark, true);
        long alone = run(spark, false);
        ratios.add((double) memwall / alone);
        System.out.printf("round %d: memwall sort %d ms, Spark's sort %d ms, ratio %.2f%n", round + 1, memwall, alone,
            ratios.getLast());
      }
      double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      System.out.printf("median ratio %.2f (%.2f-%.2f) over %d rounds%n", sorted[sorted.length / 2], sorted[0],
          sorted[sorted.length - 1], rounds);
      System.out.println(MemwallExtensions.explain(spark.sql(SQL)));
    } finally {
      spark.stop();
    }
  }

  /** One run, with memwall's sort or Spark's; its milliseconds. */
  static long run(SparkSession spark, boolean memwall) {
    spark.conf().set(MemwallSettings.ACCELERATION, memwall);
    long start = System.nanoTime();
    spark.sql(SQL).write().format("noop").mode("overwrite").save();
    return (System.nanoTime() - start) / 1_000_000;
  }
}
