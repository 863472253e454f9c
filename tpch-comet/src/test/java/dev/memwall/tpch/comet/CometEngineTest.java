package dev.memwall.tpch.comet;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.query.TpchQuery;
import dev.memwall.tpch.run.DuckDbEngine;
import dev.memwall.tpch.run.EngineProcess;
import dev.memwall.tpch.run.EngineProcessException;
import dev.memwall.tpch.run.ParquetCopy;
import dev.memwall.tpch.run.QueryEngine;
import dev.memwall.tpch.verify.DuckDbOracle;
import dev.memwall.tpch.verify.ExpectedResult;
import dev.memwall.tpch.verify.ResultComparator;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 22 TPC-H queries at SF 0.01 on Comet over the Parquet copy, each result verified against DuckDB's on
 * the memwall data set it was copied from. Comet runs as {@code --compare comet} runs it: in a JVM of its
 * own on this module's runtime class path (Comet's copy of Arrow's C interface cannot share one with
 * memwall's), while this JVM plays the command line (data set, Parquet copy, DuckDB).
 */
class CometEngineTest {
  static final double SF = 0.01;

  @TempDir static Path cache;
  static EngineMemory memory;
  static TpchDatabase database;
  static DuckDbOracle oracle;
  static Path dataDirectory;
  static EngineProcess comet;

  @BeforeAll
  static void setUp() throws Exception {
    memory = EngineMemory.create("CometEngineTest");
    database = TpchDatabase.load(cache, SF, new TpchDataGenerator(2, true), memory);
    oracle = DuckDbOracle.of(database, 2, memory);
    dataDirectory = TpchDataGenerator.dataDirectory(cache, SF);
    ParquetCopy.ensure(dataDirectory, database, memory, 2);
    comet = open(dataDirectory, false, Map.of());
  }

  @AfterAll
  static void tearDown() throws Exception {
    for (AutoCloseable resource : new AutoCloseable[] {comet, oracle, database, memory}) {
      if (resource != null) {
        resource.close();
      }
    }
  }

  /** The comet engine in a child on the class path the launcher would hand over. */
  static EngineProcess open(Path data, boolean accelerated, Map<String, String> settings) throws IOException {
    String classPath = System.getProperty("memwall.comet.classes") + File.pathSeparator
        + Files.readString(Path.of(System.getProperty("memwall.comet.classpathFile"))).strip();
    return EngineProcess.provider("comet", data, 2, accelerated, settings, classPath);
  }

  @Test
  void all22QueriesMatchDuckDb() throws Exception {
    assertTrue(comet.name().matches("Spark 4\\.1\\.\\d+ \\+ Comet \\d+\\.\\d+\\.\\d+ \\(own process\\)"), comet.name());
    DuckDbEngine duckdb = new DuckDbEngine(oracle);
    List<String> failures = new ArrayList<>();
    for (int number = 1; number <= 22; number++) {
      TpchQuery query = TpchQueries.require(number);
      var parameters = TpchParameters.validation(number, SF);
      ExpectedResult expected;
      try (QueryEngine.Result duck = duckdb.run(query, parameters)) {
        expected = ResultComparator.expectedFrom(number, duck.columns(), duck.values());
      }
      try (QueryEngine.Result result = comet.run(query, parameters)) {
        var outcome = ResultComparator.compare(result.values(), expected);
        if (!outcome.matches()) {
          failures.add("Q" + number + ": " + outcome.message());
        }
      }
    }
    assertTrue(failures.isEmpty(), String.join("\n", failures));
  }

  @Test
  void cometIsOnlyAnAnchorAndNeedsItsCopy() throws Exception {
    var accelerated = assertThrows(EngineProcessException.class, () -> open(dataDirectory, true, Map.of()));
    assertTrue(accelerated.getMessage().contains("memwall does not run inside Comet"), accelerated.getMessage());
    var setting = assertThrows(EngineProcessException.class,
        () -> open(dataDirectory, false, Map.of("master", "spark://127.0.0.1:7077")));
    assertTrue(setting.getMessage().contains("no settings"), setting.getMessage());
    Path other = Files.createDirectories(cache.resolve("other"));
    Files.copy(dataDirectory.resolve(dev.memwall.tpch.data.TpchManifest.FILE_NAME),
        other.resolve(dev.memwall.tpch.data.TpchManifest.FILE_NAME));
    assertFalse(ParquetCopy.isComplete(other));
    var noCopy = assertThrows(EngineProcessException.class, () -> open(other, false, Map.of()));
    assertTrue(noCopy.getMessage().contains("no complete Parquet copy"), noCopy.getMessage());
  }
}
