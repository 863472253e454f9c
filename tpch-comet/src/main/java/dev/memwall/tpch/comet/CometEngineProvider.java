package dev.memwall.tpch.comet;

import dev.memwall.tpch.run.ParquetCopy;
import dev.memwall.tpch.run.QueryEngine;
import dev.memwall.tpch.run.QueryEngineProvider;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The {@code comet} engine of {@code ./memwall tpch --compare comet}, found by {@link java.util.ServiceLoader}
 * in the child JVM that runs on this module's class path: a {@link CometEngine} over the Parquet copy of the
 * data set ({@link ParquetCopy}, which the command line makes before it starts the child).
 *
 * <p>Comet is an anchor, never memwall's: it takes no settings, and {@code accelerated} (memwall inside the
 * engine) is refused. Thread safety: stateless.
 */
public final class CometEngineProvider implements QueryEngineProvider {
  @Override
  public String name() {
    return "comet";
  }

  @Override
  public QueryEngine open(Path dataDirectory, int threads, boolean accelerated, Map<String, String> settings)
      throws IOException {
    if (accelerated) {
      throw new IllegalArgumentException("memwall does not run inside Comet: the comet engine is for --compare");
    }
    if (!settings.isEmpty()) {
      throw new IllegalArgumentException("the comet engine has no settings (got " + settings.keySet()
          + "); it runs on local cores only");
    }
    if (!ParquetCopy.isComplete(dataDirectory)) {
      throw new IllegalArgumentException("no complete Parquet copy of " + dataDirectory + " at "
          + ParquetCopy.directoryOf(dataDirectory) + " (./memwall tpch --compare comet makes it)");
    }
    return CometEngine.open(ParquetCopy.directoryOf(dataDirectory), threads);
  }
}
