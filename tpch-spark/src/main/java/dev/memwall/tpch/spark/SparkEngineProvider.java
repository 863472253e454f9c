package dev.memwall.tpch.spark;

import dev.memwall.tpch.run.QueryEngine;
import dev.memwall.tpch.run.QueryEngineProvider;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * The {@code spark} engine of {@code ./memwall tpch} ({@code --engine spark}, {@code --compare spark}),
 * found by {@link java.util.ServiceLoader}: a {@link SparkEngine} in this JVM. Its one setting is
 * {@code master} (Spark's master URL; default {@code local[THREADS]}).
 *
 * <p>Thread safety: stateless.
 */
public final class SparkEngineProvider implements QueryEngineProvider {
  private static final Set<String> SETTINGS = Set.of("master");

  @Override
  public String name() {
    return "spark";
  }

  @Override
  public QueryEngine open(Path dataDirectory, int threads, boolean accelerated, Map<String, String> settings) {
    for (String key : settings.keySet()) {
      if (!SETTINGS.contains(key)) {
        throw new IllegalArgumentException("the spark engine has no setting '" + key + "' (it has " + SETTINGS + ")");
      }
    }
    String master = settings.getOrDefault("master", "local[" + threads + "]");
    return SparkEngine.open(dataDirectory, master, threads, accelerated);
  }
}
