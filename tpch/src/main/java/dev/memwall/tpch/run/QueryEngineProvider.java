package dev.memwall.tpch.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Opens a {@link QueryEngine} that lives outside this module, found with {@link ServiceLoader}: module
 * {@code tpch-spark} provides {@code spark}, so that this module and the library need no Spark.
 *
 * <p>Thread safety: implementations are stateless.
 */
public interface QueryEngineProvider {
  /** The name {@code --engine} and {@code --compare} use, e.g. {@code spark}. */
  String name();

  /**
   * An engine over the TPC-H data set in {@code dataDirectory} (the tables as the generator wrote them).
   *
   * @param threads the cores the engine may use
   * @param accelerated whether memwall accelerates the engine (the {@code --engine} side) or the engine
   *     runs alone (the {@code --compare} side)
   * @param settings engine settings from the command line, e.g. {@code master} for Spark
   * @throws IllegalArgumentException for a setting the engine rejects
   */
  QueryEngine open(Path dataDirectory, int threads, boolean accelerated, Map<String, String> settings)
      throws Exception;

  /** The provider named {@code name} on the class path. */
  static QueryEngineProvider find(String name) {
    List<QueryEngineProvider> all = ServiceLoader.load(QueryEngineProvider.class).stream()
        .map(ServiceLoader.Provider::get).toList();
    return all.stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow(() ->
        new IllegalArgumentException("no engine '" + name + "' on the class path (found "
            + all.stream().map(QueryEngineProvider::name).toList() + "); the spark engine is in module tpch-spark, "
            + "which ./memwall puts on the class path"));
  }
}
