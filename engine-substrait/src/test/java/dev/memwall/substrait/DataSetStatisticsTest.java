package dev.memwall.substrait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.stats.StatisticsFile;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.substrait.optimizer.TableStatistics;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data set's statistics sidecar: read at registration, merged over a table's parts, equal to what
 * the first use collects from the same data; a missing, corrupt, other-version or stale sidecar
 * falls back to first-use collection for the tables it no longer describes, without a failure.
 */
@ExtendWith(LeakCheck.class)
class DataSetStatisticsTest {
  private static final List<String> COLUMNS = List.of("n", "x", "s", "d");

  @TempDir
  Path dir;

  /** {@code rows} rows of adversarial values: nulls, duplicates, a skewed key, type limits, -0.0 and NaN. */
  private static Table part(int rows, long seed, EngineMemory memory) {
    Random random = new Random(seed);
    try (TableBuilder builder = new TableBuilder(COLUMNS,
        List.of(ColumnType.INT64, ColumnType.FLOAT64, ColumnType.STRING, ColumnType.DATE), memory.arrow())) {
      builder.batchRows(512);
      for (int row = 0; row < rows; row++) {
        if (random.nextInt(10) == 0) {
          builder.appendNull().appendNull().appendNull().appendNull();
        } else {
          long n = switch (random.nextInt(5)) {
            case 0 -> 7; // skew
            case 1 -> random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
            case 2 -> random.nextInt(40); // duplicates across parts
            default -> random.nextLong();
          };
          double x = switch (random.nextInt(6)) {
            case 0 -> -0.0;
            case 1 -> 0.0;
            case 2 -> Double.NaN;
            default -> random.nextInt(1000) / 8.0;
          };
          builder.appendLong(n).appendDouble(x).appendString(("v" + (n % 500)).getBytes(StandardCharsets.UTF_8))
              .appendLong(random.nextInt(20_000) - 10_000);
        }
        builder.endRow();
      }
      return builder.build();
    }
  }

  /** Writes the parts t-1 (empty), t-2, t-3 and the lone u.arrow, and a sidecar of the files {@code described}. */
  private void writeDataSet(EngineMemory memory, List<String> described, boolean checksums) throws IOException {
    int[] rows = {0, 2500, 1800};
    for (int i = 0; i < rows.length; i++) {
      try (Table t = part(rows[i], 11 + i, memory)) {
        ArrowFiles.write(dir.resolve("t-" + (i + 1) + ".arrow"), t, memory.arrow());
      }
    }
    try (Table u = part(900, 5, memory)) {
      ArrowFiles.write(dir.resolve("u.arrow"), u, memory.arrow());
    }
    List<StatisticsFile.Part> parts = new ArrayList<>();
    for (String file : described) {
      Path path = dir.resolve(file);
      try (Table mapped = ArrowFiles.map(path, memory)) {
        parts.add(StatisticsFile.Part.of(path, mapped, checksums ? crc(path) : -1));
      }
    }
    StatisticsFile.write(dir, parts);
  }

  private static final List<String> ALL = List.of("t-1.arrow", "t-2.arrow", "t-3.arrow", "u.arrow");

  private static long crc(Path file) throws IOException {
    CRC32C crc = new CRC32C();
    crc.update(Files.readAllBytes(file));
    return crc.getValue();
  }

  /**
   * Registers the data set and checks each table's statistics against a first-use collection over
   * the same mapped data; {@code sketched} says for which tables the sidecar's are expected.
   */
  private void assertStatistics(EngineMemory memory, boolean tSketched, boolean uSketched) throws IOException {
    try (Catalog catalog = new Catalog().registerDataSet(dir, memory)) {
      for (String name : List.of("t", "u")) {
        boolean sketched = name.equals("t") ? tSketched : uSketched;
        TableStatistics kept = catalog.statistics(name);
        Table table = catalog.table(List.of(name)).orElseThrow();
        TableStatistics collected = TableStatistics.collected(table);
        assertEquals(table.rowCount(), kept.rows());
        for (String column : COLUMNS) {
          assertEquals(sketched, kept.known(column), name + "." + column + " known before any scan");
          assertEquals(collected.column(column).orElseThrow(), kept.column(column).orElseThrow(), name + "." + column);
        }
      }
    }
  }

  @Test
  void sidecarStatisticsEqualFirstUseOnesMergedOverParts(EngineMemory memory) throws IOException {
    writeDataSet(memory, ALL, false);
    assertStatistics(memory, true, true);
  }

  @Test
  void manifestChecksumsThatMatchKeepTheSidecar(EngineMemory memory) throws IOException {
    writeDataSet(memory, ALL, true);
    StringBuilder manifest = new StringBuilder("format=1\n");
    for (String file : ALL) {
      manifest.append(file).append(".crc32c=").append(String.format("%08x", crc(dir.resolve(file)))).append(":0:\n");
    }
    Files.writeString(dir.resolve(StatisticsFile.MANIFEST), manifest);
    assertStatistics(memory, true, true);
  }

  @Test
  void missingSidecarFallsBackToFirstUse(EngineMemory memory) throws IOException {
    writeDataSet(memory, ALL, false);
    Files.delete(dir.resolve(StatisticsFile.FILE_NAME));
    assertStatistics(memory, false, false);
  }

  @Test
  void truncatedOrFlippedSidecarFallsBack(EngineMemory memory) throws IOException {
    writeDataSet(memory, ALL, false);
    Path sidecar = dir.resolve(StatisticsFile.FILE_NAME);
    byte[] bytes = Files.readAllBytes(sidecar);
    List<byte[]> corrupted = new ArrayList<>();
    for (int length : new int[] {0, 3, 12, bytes.length / 2, bytes.length - 1}) {
      corrupted.add(java.util.Arrays.copyOf(bytes, length));
    }
    for (int at : new int[] {0, 5, 9, 12, bytes.length / 2, bytes.length - 1}) { // magic, version, length, body, sum
      byte[] flipped = bytes.clone();
      flipped[at] ^= 0x10;
      corrupted.add(flipped);
    }
    for (byte[] corrupt : corrupted) {
      Files.write(sidecar, corrupt);
      assertStatistics(memory, false, false);
    }
  }

  @Test
  void otherVersionFallsBackEvenWithAValidChecksum(EngineMemory memory) throws IOException {
    writeDataSet(memory, ALL, false);
    Path sidecar = dir.resolve(StatisticsFile.FILE_NAME);
    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(sidecar));
    bytes.putInt(4, StatisticsFile.VERSION + 1);
    CRC32C crc = new CRC32C();
    crc.update(bytes.array(), 0, bytes.limit() - Integer.BYTES);
    bytes.putInt(bytes.limit() - Integer.BYTES, (int) crc.getValue());
    Files.write(sidecar, bytes.array());
    assertStatistics(memory, false, false);
  }

  @Test
  void stalePartsFallBackForTheirTableOnly(EngineMemory memory) throws IOException {
    writeDataSet(memory, ALL, true);
    Path second = dir.resolve("t-2.arrow");
    Files.setLastModifiedTime(second, FileTime.fromMillis(Files.getLastModifiedTime(second).toMillis() + 2000));
    assertStatistics(memory, false, true); // touched: modified time differs

    writeDataSet(memory, ALL, true);
    try (Table other = part(2600, 99, memory)) { // rewritten with other rows
      ArrowFiles.write(second, other, memory.arrow());
    }
    assertStatistics(memory, false, true);

    writeDataSet(memory, ALL, true);
    Files.writeString(dir.resolve(StatisticsFile.MANIFEST), "u.arrow.crc32c=0badf00d:0:\n"); // data changed under it
    assertStatistics(memory, true, false);
    Files.delete(dir.resolve(StatisticsFile.MANIFEST));

    writeDataSet(memory, List.of("t-1.arrow", "t-3.arrow", "u.arrow"), false); // a part it does not describe
    assertStatistics(memory, false, true);
  }

  @Test
  void aSidecarOfOtherColumnsFallsBack(EngineMemory memory) throws IOException {
    writeDataSet(memory, ALL, false);
    Path sidecar = dir.resolve(StatisticsFile.FILE_NAME);
    List<StatisticsFile.Part> renamed = new ArrayList<>();
    for (StatisticsFile.Part part : StatisticsFile.read(dir).values()) {
      var columns = new java.util.LinkedHashMap<>(part.columns());
      columns.put("other", columns.remove("n"));
      renamed.add(new StatisticsFile.Part(part.file(), part.size(), part.modified(), part.checksum(), part.rows(),
          columns));
    }
    StatisticsFile.write(dir, renamed);
    assertTrue(Files.exists(sidecar));
    assertStatistics(memory, false, false);
    assertFalse(StatisticsFile.read(dir).isEmpty(), "the sidecar itself is valid; its columns are not the tables'");
  }
}
