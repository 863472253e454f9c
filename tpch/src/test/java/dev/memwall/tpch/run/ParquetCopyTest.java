package dev.memwall.tpch.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.MemoryBudget;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.data.TpchManifest;
import dev.memwall.tpch.data.TpchSchema;
import dev.memwall.tpch.verify.DuckDbOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Parquet copy of a data set: whole, made once, made again for a new data set, nothing left by a failure. */
class ParquetCopyTest {
  static final double SF = 0.01;

  @TempDir static Path cache;
  static EngineMemory memory;
  static TpchDatabase database;
  static Path data;

  @BeforeAll
  static void setUp() throws Exception {
    memory = EngineMemory.create("ParquetCopyTest");
    database = TpchDatabase.load(cache, SF, new TpchDataGenerator(2, true), memory);
    data = TpchDataGenerator.dataDirectory(cache, SF);
  }

  @AfterAll
  static void tearDown() {
    database.close();
    memory.close();
  }

  @Test
  void everyTableIsCopiedWholeOnceAndAgainForANewDataSet() throws Exception {
    Path copy = ParquetCopy.ensure(data, database, memory, 2);
    assertEquals(ParquetCopy.directoryOf(data), copy);
    assertEquals(data.getFileName() + "-parquet", copy.getFileName().toString(), "beside the data set, not in it");
    assertTrue(ParquetCopy.isComplete(data));
    try (DuckDbOracle reader = new DuckDbOracle(1)) {
      for (String table : TpchSchema.TABLE_NAMES) {
        long rows = ((Number) reader.runSql("SELECT count(*) FROM read_parquet('" + copy.resolve(table + ".parquet")
            + "')").rows().getFirst().getFirst()).longValue();
        assertEquals(database.tables().get(table).rowCount(), rows, table);
      }
      Path lineitem = copy.resolve("lineitem.parquet");
      assertEquals(List.of("DECIMAL(15,2)", "DATE", "1996-03-13"), reader.runSql("SELECT typeof(l_extendedprice), "
          + "typeof(l_shipdate), l_shipdate::VARCHAR FROM read_parquet('" + lineitem + "') ORDER BY l_orderkey, "
          + "l_linenumber LIMIT 1").rows().getFirst(), "decimals stay decimals and dates dates");
    }

    FileTime written = Files.getLastModifiedTime(copy.resolve("lineitem.parquet"));
    ParquetCopy.ensure(data, database, memory, 2);
    assertEquals(written, Files.getLastModifiedTime(copy.resolve("lineitem.parquet")), "a complete copy is kept");

    Path manifest = data.resolve(TpchManifest.FILE_NAME);
    String original = Files.readString(manifest);
    try {
      Files.writeString(manifest, original + "\n");
      assertFalse(ParquetCopy.isComplete(data), "a data set generated again needs a new copy");
      Files.setLastModifiedTime(copy.resolve("lineitem.parquet"), FileTime.fromMillis(0));
      ParquetCopy.ensure(data, database, memory, 2);
      assertTrue(ParquetCopy.isComplete(data));
      assertTrue(Files.getLastModifiedTime(copy.resolve("lineitem.parquet")).toMillis() > 0, "written again");
    } finally {
      Files.writeString(manifest, original);
    }
  }

  @Test
  void aFailedCopyLeavesNoDirectoryBehind() throws Exception {
    Path other = cache.resolve("failing");
    Files.createDirectories(other);
    Files.copy(data.resolve(TpchManifest.FILE_NAME), other.resolve(TpchManifest.FILE_NAME));
    try (EngineMemory tiny = EngineMemory.create(MemoryBudget.of("tiny", 1))) {
      assertThrows(BudgetExceededException.class, () -> ParquetCopy.ensure(other, database, tiny, 1));
    }
    try (Stream<Path> left = Files.list(cache)) {
      assertEquals(List.of(), left.filter(path -> path.getFileName().toString().startsWith("failing-parquet")).toList());
    }
    assertFalse(ParquetCopy.isComplete(other));
  }
}
