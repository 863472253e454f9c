package dev.memwall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.tpch.query.TpchQueries;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code memwall sql --table NAME=FILE --data-set DIR}: SQL over Arrow files, without the TPC-H tables. */
class SqlCommandTablesTest {
  @TempDir static Path dir;

  @BeforeAll
  static void writeFiles() throws IOException {
    try (EngineMemory memory = EngineMemory.create("sql --table files")) {
      try (TableBuilder builder = new TableBuilder(List.of("id", "name"), List.of(ColumnType.INT64, ColumnType.STRING),
          memory.arrow())) {
        builder.appendLong(1).appendString("ann".getBytes(StandardCharsets.UTF_8)).endRow();
        builder.appendLong(2).appendString("bob".getBytes(StandardCharsets.UTF_8)).endRow();
        try (Table people = builder.build()) {
          ArrowFiles.write(dir.resolve("people.arrow"), people, memory.arrow());
        }
      }
      Files.createDirectories(dir.resolve("set"));
      for (int part = 1; part <= 2; part++) {
        try (TableBuilder builder = new TableBuilder(List.of("person", "amount"),
            List.of(ColumnType.INT64, ColumnType.FLOAT64), memory.arrow())) {
          builder.appendLong(1).appendDouble(part * 10.0).endRow();
          builder.appendLong(2).appendDouble(part).endRow();
          try (Table visits = builder.build()) {
            ArrowFiles.write(dir.resolve("set").resolve("visits-" + part + ".arrow"), visits, memory.arrow());
          }
        }
      }
    }
  }

  private static MemwallCliTest.Run sql(String... args) {
    CommandLine line = MemwallCli.commandLine(TpchQueries::require, TpchQueries::implemented, () -> new StringReader(""));
    List<String> all = new java.util.ArrayList<>(List.of("sql", "--data", dir.resolve("no-tpch").toString(), "--quiet",
        "--threads", "1"));
    all.addAll(List.of(args));
    return MemwallCliTest.execute(line, all.toArray(String[]::new));
  }

  @Test
  void arrowFilesAndADataSetAreTablesAndNoTpchDataIsGenerated() {
    MemwallCliTest.Run run = sql("--table", "people=" + dir.resolve("people.arrow"), "--data-set",
        dir.resolve("set").toString(), "select p.name, sum(v.amount) as total from people p, visits v "
            + "where p.id = v.person group by p.name order by p.name");
    assertEquals(0, run.exitCode(), run.err());
    assertEquals(List.of("name | total", "-----+------", "ann  |  30.0", "bob  |   3.0", "(2 rows)"),
        run.out().lines().toList());
    assertEquals(false, Files.exists(dir.resolve("no-tpch")), "no TPC-H data set generated");
  }

  @Test
  void missingFileAndNameGivenTwiceFailBeforeAnyStatement() {
    sql("--table", "gone=" + dir.resolve("gone.arrow"), "select 1 from gone").failedWith(3, "gone.arrow");
    sql("--table", "visits=" + dir.resolve("people.arrow"), "--data-set", dir.resolve("set").toString(),
        "select 1 from visits").failedWith(2, "table 'visits' is already registered");
    sql("--table", "people", "select 1 from people").failedWith(2, "people");
  }
}
