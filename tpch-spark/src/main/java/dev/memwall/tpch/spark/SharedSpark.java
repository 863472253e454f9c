package dev.memwall.tpch.spark;

import dev.memwall.spark.MemwallExtensions;
import org.apache.spark.sql.SparkSession;

/**
 * The one Spark context of this JVM that {@link SparkEngine}s share, counted: made with memwall's
 * extension installed (each engine's session switches it on or off) by the first {@link #acquire}, stopped
 * by the last {@link #release}. A master other than {@code local} gets memwall's jars and JVM flags for
 * its executors ({@link ExecutorSetup}).
 *
 * <p>Thread safety: the methods synchronize. Bad input: a second {@link #acquire} with another master
 * throws {@link IllegalArgumentException}, as one JVM holds one Spark context.
 */
final class SharedSpark {
  private static SparkSession root;
  private static String rootMaster;
  private static int users;

  private SharedSpark() {}

  static synchronized SparkSession acquire(String master, int threads) {
    if (root == null) {
      SparkSession.Builder builder = SparkSession.builder();
      if (ExecutorSetup.remote(master)) {
        builder = ExecutorSetup.configure(builder);
      }
      root = builder
          .master(master)
          .appName("memwall tpch")
          .config("spark.sql.extensions", MemwallExtensions.class.getName())
          .config("spark.ui.enabled", "false")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.sql.shuffle.partitions", Integer.toString(threads))
          .config("spark.sql.datetime.java8API.enabled", "true")
          .getOrCreate();
      rootMaster = master;
    } else if (!rootMaster.equals(master)) {
      throw new IllegalArgumentException("one Spark context per JVM: already running on " + rootMaster + ", not " + master);
    }
    users++;
    return root;
  }

  static synchronized void release() {
    if (--users == 0) {
      root.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
      root = null;
      rootMaster = null;
    }
  }
}
