package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Doubles the way Spark has them, computed by memwall ({@link FloatOrder}): grouping keys with NaN (of
 * several bit patterns), -0.0, 0.0, +-Infinity and nulls; MIN and MAX over groups that are all NaN, all
 * null, NaN and numbers, -0.0 and 0.0, infinities; comparisons and IN with NaN, -0.0 and infinite
 * literals pushed into the scan. memwall runs every one of them (EXPLAIN shows no fallback) and Spark
 * gives the same rows with the extension as without it.
 *
 * <p>Spark's MIN and MAX of -0.0 and 0.0 keep whichever they met first (the two compare equal), so rows of
 * queries with MIN or MAX are compared with -0.0 read as 0.0; grouping keys are compared exactly.
 */
class FloatOrderTest {
  @TempDir static Path dir;
  static SparkSession spark;

  /** Values of x, drawn per row; null stands for a null. */
  private static final Double[] SPECIAL = {Double.NaN, Double.longBitsToDouble(0x7ff8000000000abcL),
      Double.longBitsToDouble(0xfff8000000000000L), -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
      1.5, -2.5, Double.MAX_VALUE, -Double.MIN_VALUE, null};

  @BeforeAll
  static void setUp() throws Exception {
    spark = SparkTestSession.start("FloatOrderTest", "spark.sql.extensions", MemwallExtensions.class.getName());
    Path files = Files.createDirectories(dir.resolve("floats"));
    try (EngineMemory memory = EngineMemory.create("FloatOrderTest data")) {
      write(files.resolve("a.arrow"), 0, 3000, memory);
      write(files.resolve("b.arrow"), 3000, 2000, memory);
    }
    SparkTestSession.viewWithReference(spark, files, "t", "reference");
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  /**
   * Rows {@code id} of group {@code g}: g 0 all NaN, 1 all null, 2 NaN and numbers, 3 -0.0 and 0.0 only,
   * 4 +Infinity and NaN, 5 -Infinity, +Infinity and nulls, 6 to 9 any special value; y is a special value.
   */
  private static void write(Path file, int firstId, int rows, EngineMemory memory) throws Exception {
    Random random = new Random(firstId);
    try (TableBuilder builder = new TableBuilder(List.of("id", "g", "x", "y"),
        List.of(ColumnType.INT32, ColumnType.INT32, ColumnType.FLOAT64, ColumnType.FLOAT64), memory.arrow())) {
      for (int id = firstId; id < firstId + rows; id++) {
        int g = random.nextInt(10);
        Double x = switch (g) {
          case 0 -> SPECIAL[random.nextInt(3)];
          case 1 -> null;
          case 2 -> random.nextBoolean() ? SPECIAL[random.nextInt(3)] : random.nextGaussian();
          case 3 -> random.nextBoolean() ? -0.0 : 0.0;
          case 4 -> random.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NaN;
          case 5 -> new Double[] {Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, null}[random.nextInt(3)];
          default -> SPECIAL[random.nextInt(SPECIAL.length)];
        };
        builder.appendLong(id).appendLong(g);
        append(builder, x);
        append(builder, SPECIAL[random.nextInt(SPECIAL.length)]);
        builder.endRow();
      }
      try (Table table = builder.build()) {
        ArrowFiles.write(file, table, memory.arrow());
      }
    }
  }

  private static void append(TableBuilder builder, Double value) {
    if (value == null) {
      builder.appendNull();
    } else {
      builder.appendDouble(value);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select g, min(x), max(x), count(x), count(*) from %s group by g",
      "select x, count(*), sum(id) from %s group by x",
      "select x, min(y), max(y), count(y) from %s group by x",
      "select g, x, y, count(*) from %s group by g, x, y",
      "select min(x), max(x), min(y), max(y) from %s",
      "select g, min(x), max(y) from %s where x > 1.0 group by g",
      "select g, min(y), max(y), count(*) from %s where x = cast('NaN' as double) group by g",
      "select x, count(*) from %s where x >= 0.0 group by x",
      "select x, count(*) from %s where x in (0.0, cast('NaN' as double), cast('-Infinity' as double)) group by x",
      "select g, min(x), count(*) from %s where x < cast('NaN' as double) or y > cast('Infinity' as double)"
          + " group by g",
      "select y, max(x), count(*) from %s where not (x <= -0.0) group by y",
  })
  void memwallComputesDoublesAsSparkDoes(String sql) {
    Dataset<Row> memwall = spark.sql(sql.formatted("t"));
    boolean minOrMax = sql.contains("min(") || sql.contains("max(");
    assertEquals(rows(spark.sql(sql.formatted("reference")), minOrMax), rows(memwall, minOrMax), sql);
    List<String> explained = MemwallExtensions.explain(memwall);
    assertTrue(explained.stream().anyMatch(line -> line.startsWith("memwall runs")), explained + "\n" + sql);
    assertTrue(explained.stream().noneMatch(line -> line.startsWith("memwall leaves")), explained + "\n" + sql);
    assertTrue(Plans.scanOf(memwall).notPushed().isEmpty(), Plans.scanOf(memwall).description());
    SparkTestSession.assertTaskResourcesFreed();
  }

  @Test
  void groupsEveryNanTogetherAndNegativeZeroWithZero() {
    List<Row> groups = spark.sql("select x, count(*) from t where g in (0, 3) group by x").collectAsList();
    assertEquals(2, groups.size(), groups.toString());
    for (Row row : groups) {
      double x = row.getDouble(0);
      assertTrue(Double.isNaN(x) || Double.doubleToRawLongBits(x) == 0L, "the key is NaN or +0.0: " + x);
    }
  }

  private static List<String> rows(Dataset<Row> dataset, boolean zeroAsZero) {
    return zeroAsZero ? SparkTestSession.sortedRowsZeroAsZero(dataset) : SparkTestSession.sortedRows(dataset);
  }
}
