package dev.memwall.tpch.run;

import dev.memwall.tpch.query.QueryParameters;
import dev.memwall.tpch.query.TpchQuery;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A test engine, {@code echo}, that answers each query with what it was opened and asked with (one
 * row: the query's number and first parameter, the data directory, the threads, whether accelerated,
 * the setting {@code x}), and fails Q13 with a runtime exception, as a query an engine cannot run.
 * {@link EngineProcessTest} runs it in a child process.
 */
public final class EchoEngineProvider implements QueryEngineProvider {
  @Override
  public String name() {
    return "echo";
  }

  @Override
  public QueryEngine open(Path dataDirectory, int threads, boolean accelerated, Map<String, String> settings) {
    return new QueryEngine() {
      @Override
      public String name() {
        return "echo";
      }

      @Override
      public Result run(TpchQuery query, QueryParameters parameters) {
        if (query.number() == 13) {
          throw new IllegalStateException("echo does not run Q13");
        }
        Object first = parameters.values().values().iterator().next();
        return Result.of(List.of("query", "parameter", "data", "threads", "accelerated", "x"),
            List.of(List.of(query.number(), first, dataDirectory.toString(), threads, accelerated,
                settings.getOrDefault("x", "-"))));
      }

      @Override
      public void close() {}
    };
  }
}
