package dev.memwall.tpch.spark;

import dev.memwall.core.vector.Table;
import dev.memwall.spark.MemwallExtensions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Properties;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * What executors in other JVMs (a standalone cluster, YARN, Kubernetes) need for memwall, set on a session
 * builder when the master is not {@code local}: memwall's jars ({@code spark.jars}: engine-spark,
 * engine-core, engine-join (the joins it runs) and the Arrow allocator engine-core brings, which Spark's distribution lacks) and memwall's
 * JVM flags ({@code spark.executor.extraJavaOptions}: native access for the FFM memory, Arrow's
 * {@code java.nio} access), next to the module options Spark adds to every JVM it starts itself.
 *
 * <p>Bad input: memwall classes loaded from a directory rather than a jar (a build without
 * {@code package}) throw {@link IllegalStateException}, as a directory cannot be shipped.
 */
final class ExecutorSetup {
  /** memwall's JVM flags, as the build wrote them from the parent POM's {@code memwall.jvm.flags}. */
  static final String MEMWALL_FLAGS = memwallFlags();

  /** Each executor's heap unless the master's configuration says otherwise. */
  static final String EXECUTOR_MEMORY = "4g";

  private ExecutorSetup() {}

  /** Whether {@code master} runs executors in JVMs of their own. */
  static boolean remote(String master) {
    return !master.startsWith("local");
  }

  /** Adds what executors need to {@code builder}. */
  static SparkSession.Builder configure(SparkSession.Builder builder) {
    return builder.config("spark.jars", String.join(",", jars()))
        .config("spark.executor.extraJavaOptions", MEMWALL_FLAGS)
        .config("spark.executor.memory", EXECUTOR_MEMORY);
  }

  /** The jars holding memwall's Spark connector, its engine and the Arrow allocator they use. */
  static Set<String> jars() {
    Set<String> jars = new LinkedHashSet<>();
    for (String name : new String[] {MemwallExtensions.class.getName(), Table.class.getName(),
        "dev.memwall.join.pipeline.HashProbeStage", "org.apache.arrow.memory.unsafe.UnsafeAllocationManager"}) {
      Class<?> type;
      try {
        type = Class.forName(name, false, ExecutorSetup.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        continue; // the allocator is optional: Spark's executors bring Arrow's netty allocator
      }
      jars.add(location(type).toString());
    }
    return jars;
  }

  private static Path location(Class<?> type) {
    try {
      Path path = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!Files.isRegularFile(path)) {
        throw new IllegalStateException("memwall: " + type.getName() + " was loaded from " + path
            + ", not a jar; executors in other JVMs need jars (./mvnw package builds them)");
      }
      return path;
    } catch (URISyntaxException e) {
      throw new IllegalStateException("memwall: cannot locate the jar of " + type.getName(), e);
    }
  }

  private static String memwallFlags() {
    Properties properties = new Properties();
    try (InputStream in = ExecutorSetup.class.getResourceAsStream("executor.properties")) {
      if (in == null) {
        throw new IllegalStateException("memwall: executor.properties is missing from the tpch-spark jar");
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("memwall: cannot read executor.properties", e);
    }
    return properties.getProperty("memwall.jvm.flags").strip();
  }
}
