package dev.memwall.tpch.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.stats.StatisticsFile;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.optimizer.TableStatistics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generator leaves a statistics sidecar beside the parts it writes, and a catalog registering the
 * data set takes every column's statistics from it, equal to what a first use collects from the same
 * mapped data (lineitem's three parts merged), whether the catalog maps the set itself or is given a TPC-H
 * database's tables; once a part changes, that table's are collected again.
 */
@ExtendWith(LeakCheck.class)
class StatisticsSidecarTest {
  @TempDir Path dir;

  @Test
  void generatedDataSetsCarryStatisticsEqualToFirstUseOnes(EngineMemory memory) throws IOException {
    new TpchDataGenerator(2, true, 20_000).ensure(dir, TpchDataGeneratorTest.SF, memory);
    assertTrue(Files.isRegularFile(dir.resolve(StatisticsFile.FILE_NAME)));
    assertEquals(3, StatisticsFile.read(dir).keySet().stream().filter(f -> f.startsWith("lineitem-")).count());
    try (Catalog catalog = new Catalog().registerDataSet(dir, memory)) {
      assertEquals(Set.copyOf(TpchSchema.TABLE_NAMES), catalog.tables().keySet());
      for (String name : TpchSchema.TABLE_NAMES) {
        assertSketched(catalog, name, true);
      }
    }
    try (TpchDatabase db = TpchDatabase.open(dir, TpchDataGeneratorTest.SF, memory)) {
      Catalog catalog = Catalog.ofDataSet(db.tables(), db.directory()); // the database's own mappings
      for (String name : TpchSchema.TABLE_NAMES) {
        assertSketched(catalog, name, true);
      }
    }
    Path part = dir.resolve("lineitem-2.arrow");
    Files.setLastModifiedTime(part, java.nio.file.attribute.FileTime.fromMillis(
        Files.getLastModifiedTime(part).toMillis() + 5000));
    try (Catalog catalog = new Catalog().registerDataSet(dir, memory)) {
      assertSketched(catalog, "lineitem", false);
      assertSketched(catalog, "orders", true);
    }
    try (TpchDatabase db = TpchDatabase.open(dir, TpchDataGeneratorTest.SF, memory)) {
      Catalog catalog = Catalog.ofDataSet(db.tables(), db.directory());
      assertSketched(catalog, "lineitem", false);
      assertSketched(catalog, "part", true);
    }
  }

  private static void assertSketched(Catalog catalog, String name, boolean sketched) {
    TableStatistics kept = catalog.statistics(name);
    Table table = catalog.table(List.of(name)).orElseThrow();
    TableStatistics collected = TableStatistics.collected(table);
    assertEquals(table.rowCount(), kept.rows(), name);
    for (Field field : table.schema().getFields()) {
      assertEquals(sketched, kept.known(field.getName()), name + "." + field.getName());
      assertEquals(collected.column(field.getName()), kept.column(field.getName()), name + "." + field.getName());
    }
  }
}
