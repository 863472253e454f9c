package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.arrow.TableReader;
import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.TableRows;
import dev.memwall.substrait.UnreadableColumnFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL over tables a catalog registered from an Arrow file, a data set directory and a host's
 * stream, joined in one query; and the refusal of a query naming a column left out for its type.
 */
@ExtendWith(LeakCheck.class)
class SqlOverRegisteredSourcesTest {
  @TempDir Path dir;

  @Test
  void fileDataSetAndStreamTablesJoinInOneQuery(EngineMemory memory) throws Exception {
    try (Table people = people(memory)) {
      ArrowFiles.write(dir.resolve("people.arrow"), people, memory.arrow());
      Path set = dir.resolve("set");
      java.nio.file.Files.createDirectories(set);
      try (Table first = visits(memory, 0); Table second = visits(memory, 3)) {
        ArrowFiles.write(set.resolve("visits-1.arrow"), first, memory.arrow());
        ArrowFiles.write(set.resolve("visits-2.arrow"), second, memory.arrow());
      }
      try (Catalog catalog = new Catalog().registerFile("people", dir.resolve("people.arrow"), memory)
              .registerDataSet(set, memory);
          TableReader stream = TableReader.borrowing(people, memory.arrow())) {
        catalog.registerStream("streamed", stream, memory);
        String sql = "select p.name, count(*) as n from people p, visits v, streamed s "
            + "where p.id = v.person and s.id = p.id group by p.name order by p.name";
        try (Table result = Memwall.sql(catalog, sql, new ExecutionContext(memory, 2))) {
          assertEquals(List.of(List.of("ann", 4L), List.of("bob", 2L)), TableRows.of(result));
        }
      }
    }
  }

  @Test
  void queryNamingAColumnLeftOutForItsTypeIsRefusedNamingTableAndColumn(EngineMemory memory) throws Exception {
    Path file = dir.resolve("wide.arrow");
    UnreadableColumnFile.write(file, "flags", 2, memory.arrow());
    try (Catalog catalog = new Catalog().registerFile("wide", file, memory)) {
      try (Table ids = Memwall.sql(catalog, "select id from wide", ExecutionContext.singleThreaded(memory))) {
        assertEquals(List.of(List.of(0L), List.of(1L)), TableRows.of(ids), "the other columns stay readable");
      }
      SqlException e = assertThrows(SqlException.class, () -> Memwall.prepare(catalog, "select flags from wide"));
      assertTrue(e.getMessage().contains("table 'wide'") && e.getMessage().contains("flags")
          && e.getMessage().contains("wide.arrow"), e.getMessage());
    }
  }

  private static Table people(EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(List.of("id", "name"), List.of(ColumnType.INT64, ColumnType.STRING),
        memory.arrow())) {
      builder.appendLong(1).appendString("ann".getBytes(StandardCharsets.UTF_8)).endRow();
      builder.appendLong(2).appendString("bob".getBytes(StandardCharsets.UTF_8)).endRow();
      builder.appendLong(3).appendString("cy".getBytes(StandardCharsets.UTF_8)).endRow();
      return builder.build();
    }
  }

  /** Three visits: person 1, 1 and 2 (from {@code offset}); the caller closes the table. */
  private static Table visits(EngineMemory memory, long offset) {
    try (TableBuilder builder = new TableBuilder(List.of("visit", "person"), List.of(ColumnType.INT64, ColumnType.INT64),
        memory.arrow())) {
      builder.appendLong(offset).appendLong(1).endRow();
      builder.appendLong(offset + 1).appendLong(1).endRow();
      builder.appendLong(offset + 2).appendLong(2).endRow();
      return builder.build();
    }
  }
}
