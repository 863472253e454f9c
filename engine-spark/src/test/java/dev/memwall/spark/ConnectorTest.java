package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code spark.read.format("memwall")} against memwall reading the same files itself: every type round
 * trips, pushed filters select what Spark's own filtering selects, only the requested columns are read,
 * statistics are reported.
 */
class ConnectorTest {
  @TempDir static Path dir;
  static SparkSession spark;
  static Path typed;
  static List<Path> files;
  static List<List<Object>> expected;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SparkTestSession.start("ConnectorTest");
    typed = Files.createDirectories(dir.resolve("typed"));
    files = List.of(typed.resolve("a.arrow"), typed.resolve("b.arrow"));
    try (EngineMemory memory = EngineMemory.create("ConnectorTest data")) {
      TypedFiles.write(files.get(0), 0, new int[] {1000, 0, 1500}, 1, memory);
      TypedFiles.write(files.get(1), 2500, new int[] {700}, 2, memory);
      expected = TypedFiles.read(files, memory);
    }
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  private static Dataset<Row> reference;

  /** The same rows in a Spark local relation, which Spark filters itself. */
  private static synchronized Dataset<Row> reference() {
    if (reference == null) {
      reference = spark.createDataFrame(read().collectAsList(), read().schema());
    }
    return reference;
  }

  private static Dataset<Row> read() {
    return spark.read().format("memwall").load(typed.toString());
  }

  /** The rows of {@code dataset}, by id (the first column). */
  private static List<List<Object>> rows(Dataset<Row> dataset) {
    List<List<Object>> rows = new ArrayList<>(SparkTestSession.rows(dataset));
    rows.sort(Comparator.comparing(row -> (Integer) row.getFirst()));
    return rows;
  }

  @Test
  void mapsEveryTypeToSpark() {
    StructType schema = read().schema();
    assertEquals(List.of("id", "i32", "i64", "f64", "d", "dec", "dec128", "s", "ds"),
        Arrays.asList(schema.fieldNames()));
    assertEquals(List.of(DataTypes.IntegerType, DataTypes.IntegerType, DataTypes.LongType, DataTypes.DoubleType,
            DataTypes.DateType, DataTypes.createDecimalType(18, 2), DataTypes.createDecimalType(12, 3),
            DataTypes.StringType, DataTypes.StringType),
        Arrays.stream(schema.fields()).map(f -> f.dataType()).toList());
    assertFalse(schema.apply("id").nullable());
    assertTrue(schema.apply("ds").nullable());
  }

  @Test
  void roundTripsEveryTypeAsMemwallReadsIt() {
    List<List<Object>> actual = rows(read());
    assertEquals(expected.size(), actual.size());
    assertEquals(3200, actual.size());
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i), actual.get(i), "row " + i);
    }
    assertTrue(expected.stream().anyMatch(row -> row.get(8) == null), "the data has null dictionary strings");
    assertTrue(expected.stream().anyMatch(row -> row.get(3) instanceof Double d && d.isNaN()), "and NaN");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "i32 > 100 | true",
      "i32 <= -5 AND i64 IS NOT NULL | true",
      "d >= DATE '1995-01-01' AND d < DATE '1996-01-01' | true",
      "dec BETWEEN 10.50 AND 2000.00 | true",
      "dec128 < 0 | true",
      "s = 'apple7' | true",
      "s > 'f' | true",
      "ds IN ('apple', 'dürüm', '') | true",
      "ds IS NULL | true",
      "NOT (ds = 'fig') | true",
      "i32 IN (1, 2, 3) OR dec < -9000 | true",
      "ds LIKE 'ch%' | true",
      "i64 <> 0 AND id < 3000 | true",
      "f64 > 0 | true",
      "f64 = CAST('NaN' AS DOUBLE) | true",
      "f64 >= 0.0 AND f64 <= 0.0 | true",
      "NOT (f64 < 10.0) | true",
      "f64 IN (-0.0, CAST('NaN' AS DOUBLE), 1e308) | true",
      "f64 <= CAST('NaN' AS DOUBLE) AND i32 > 0 | true",
      "f64 > CAST('NaN' AS DOUBLE) OR f64 < CAST('NaN' AS DOUBLE) AND i32 = 5 | true",
      "f64 <> CAST('NaN' AS DOUBLE) AND NOT (f64 >= CAST('NaN' AS DOUBLE)) | true",
      "-1.5 < f64 AND CAST('Infinity' AS DOUBLE) > f64 | true",
      "i32 + 1 > 5 | false",
      "id = 1234 | true",
  })
  void pushedFiltersSelectWhatSparkSelects(String condition, boolean pushed) {
    Dataset<Row> memwall = read().where(condition);
    MemwallScan scan = Plans.scanOf(memwall);
    // Spark adds IS NOT NULL filters of its own, which memwall takes too
    assertEquals(pushed, scan.notPushed().isEmpty(), condition + ": " + scan.description());
    assertFalse(scan.pushed().isEmpty(), scan.description());
    Dataset<Row> local = reference().where(condition);
    List<List<Object>> reference = rows(local);
    assertEquals(reference, rows(memwall), condition);
    assertFalse(reference.isEmpty(), condition + " selects some rows");
  }

  @Test
  void readsOnlyTheRequestedColumns() throws Exception {
    Dataset<Row> pruned = read().select("id", "dec", "ds");
    MemwallScan scan = Plans.scanOf(pruned);
    assertEquals(List.of("id", "dec", "ds"), Arrays.asList(scan.readSchema().fieldNames()));
    List<List<Object>> expectedColumns = expected.stream().map(row -> List.of(row.get(0),
        row.get(5) == null ? "null" : row.get(5), row.get(8) == null ? "null" : row.get(8))).toList();
    List<List<Object>> actual = rows(pruned).stream()
        .map(row -> row.stream().map(v -> v == null ? "null" : v).toList()).toList();
    assertEquals(expectedColumns, actual);

    // the reader itself hands Spark batches of the requested columns only
    var factory = scan.createReaderFactory();
    int rows = 0;
    try (PartitionReader<ColumnarBatch> reader = factory.createColumnarReader(scan.planInputPartitions()[0])) {
      while (reader.next()) {
        assertEquals(3, reader.get().numCols());
        rows += reader.get().numRows();
      }
    }
    assertEquals(2500, rows);
    SparkTestSession.assertTaskResourcesFreed();
  }

  @Test
  void cutsFilesIntoRunsOfRecordBatchesAsSparkCutsFiles() {
    MemwallScan whole = Plans.scanOf(read());
    assertEquals(List.of(2500L, 700L), Arrays.stream(whole.planInputPartitions())
        .map(p -> ((MemwallInputPartition) p).rows()).toList(), "small files: one partition each");
    spark.conf().set("spark.sql.files.maxPartitionBytes", "1"); // every record batch on its own
    spark.conf().set("spark.sql.files.openCostInBytes", "0");
    try {
      Dataset<Row> split = read();
      var partitions = Arrays.stream(Plans.scanOf(split).planInputPartitions())
          .map(MemwallInputPartition.class::cast).toList();
      assertEquals(List.of("a.arrow 0+1 1000", "a.arrow 1+1 0", "a.arrow 2+1 1500", "b.arrow 0+1 700"),
          partitions.stream().map(p -> Path.of(p.path()).getFileName() + " " + p.firstBatch() + "+" + p.batches()
              + " " + p.rows()).toList());
      assertEquals(rows(read().limit(0).union(reference())), rows(split), "the same rows, read batch by batch");
      assertEquals(expected.stream().filter(row -> row.get(1) != null && (Integer) row.get(1) > 0).count(),
          split.where("i32 > 0").count());
    } finally {
      spark.conf().unset("spark.sql.files.maxPartitionBytes");
      spark.conf().unset("spark.sql.files.openCostInBytes");
    }
    SparkTestSession.assertTaskResourcesFreed();
  }

  @Test
  void reportsRowCountAndSize() {
    Statistics all = Plans.scanOf(read()).estimateStatistics();
    Statistics two = Plans.scanOf(read().select("id", "i32")).estimateStatistics();
    assertEquals(3200, all.numRows().getAsLong());
    assertEquals(3200, two.numRows().getAsLong());
    assertTrue(two.sizeInBytes().getAsLong() < all.sizeInBytes().getAsLong() / 3,
        two.sizeInBytes() + " of " + all.sizeInBytes());
    assertTrue(two.sizeInBytes().getAsLong() >= 3200L * 8, "two int columns: " + two.sizeInBytes());
    assertEquals(3200, read().count());
  }

  @Test
  void countsWithoutColumns() {
    assertEquals(expected.stream().filter(row -> row.get(1) != null && (Integer) row.get(1) > 0).count(),
        read().where("i32 > 0").count());
  }

  @Test
  void readsArrowStreamsOtherLibrariesWriteLeavingOutWhatMemwallDoesNotRead() throws Exception {
    Path foreign = Files.createDirectories(dir.resolve("foreign"));
    try (RootAllocator allocator = new RootAllocator();
        IntVector x = new IntVector("x", allocator);
        SmallIntVector small = new SmallIntVector("small", allocator);
        VarCharVector name = new VarCharVector("name", allocator)) {
      for (int i = 0; i < 100; i++) {
        x.setSafe(i, i * 3);
        small.setSafe(i, i);
        if (i % 10 == 0) {
          name.setNull(i);
        } else {
          name.setSafe(i, ("n" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
      }
      try (VectorSchemaRoot root = VectorSchemaRoot.of(x, small, name)) {
        root.setRowCount(100);
        try (var out = Files.newOutputStream(foreign.resolve("data.arrows"));
            ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
          writer.start();
          writer.writeBatch();
          writer.end();
        }
        root.clear(); // the vectors are closed by the try above
      }
    }
    Dataset<Row> read = spark.read().format("memwall").load(foreign.toString());
    assertEquals(List.of("x", "name"), Arrays.asList(read.schema().fieldNames()));
    assertTrue(Plans.scanOf(read).description().contains("columns memwall does not read [small]"),
        Plans.scanOf(read).description());
    List<Row> rows = read.where("x > 150 and name is not null").orderBy("x").collectAsList();
    assertEquals(IntStream.range(51, 100).filter(i -> i % 10 != 0).boxed().toList(),
        rows.stream().map(row -> row.getInt(0) / 3).toList());
    assertEquals("n51", rows.getFirst().getString(1));
  }

  @Test
  void readsOneTableOfADirectoryOfSeveral() throws Exception {
    Path several = Files.createDirectories(dir.resolve("several"));
    try (EngineMemory memory = EngineMemory.create("several")) {
      TypedFiles.write(several.resolve("t-1.arrow"), 0, new int[] {10}, 3, memory);
      TypedFiles.write(several.resolve("t-2.arrow"), 10, new int[] {20, 5}, 4, memory);
      TypedFiles.write(several.resolve("t-10.arrow"), 35, new int[] {3}, 5, memory);
      TypedFiles.write(several.resolve("u-1.arrow"), 100, new int[] {7}, 6, memory);
    }
    IllegalArgumentException ambiguous = assertThrows(IllegalArgumentException.class,
        () -> spark.read().format("memwall").load(several.toString()));
    assertTrue(ambiguous.getMessage().contains("[t, u]"), ambiguous.getMessage());
    Dataset<Row> t = spark.read().format("memwall").option("table", "t").load(several.toString());
    assertEquals(3, t.rdd().getNumPartitions());
    assertEquals(IntStream.range(0, 38).boxed().toList(),
        t.select("id").collectAsList().stream().map(row -> row.getInt(0)).toList(), "parts in order 1, 2, 10");
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> spark.read().format("memwall").option("table", "v").load(several.toString()));
    assertTrue(missing.getMessage().contains("v-<n>.arrow"), missing.getMessage());
  }
}
