package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code df.write.format("memwall")}: what is written reads back the same, through Spark and through
 * memwall; append adds parts, overwrite replaces them; a column the connector cannot read back is refused
 * before anything is written; a failing job leaves no file, temporary or final, and no task memory.
 */
class ConnectorWriteTest {
  @TempDir static Path dir;
  static SparkSession spark;
  static Path typed;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SparkTestSession.start("ConnectorWriteTest");
    typed = Files.createDirectories(dir.resolve("typed"));
    try (EngineMemory memory = EngineMemory.create("ConnectorWriteTest data")) {
      TypedFiles.write(typed.resolve("a.arrow"), 0, new int[] {1000, 0, 1500}, 1, memory);
      TypedFiles.write(typed.resolve("b.arrow"), 2500, new int[] {700}, 2, memory);
    }
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  @AfterEach
  void nothingLeftOpen() {
    SparkTestSession.assertTaskResourcesFreed();
  }

  private static Dataset<Row> read(Path path) {
    return spark.read().format("memwall").load(path.toString());
  }

  private static List<String> names(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void everyTypeRoundTripsWithNullsNaNAndNegativeZero() throws Exception {
    Dataset<Row> original = read(typed);
    Path out = dir.resolve("round-trip");
    original.repartition(3).write().format("memwall").mode("overwrite").save(out.toString());
    assertEquals(List.of("part-1.arrow", "part-2.arrow", "part-3.arrow"), names(out));
    Dataset<Row> back = read(out);
    assertEquals(original.schema().asNullable(), back.schema().asNullable());
    assertEquals(SparkTestSession.sortedRows(original), SparkTestSession.sortedRows(back));
    try (EngineMemory memory = EngineMemory.create("memwall reads what Spark wrote")) {
      List<Path> parts = List.of(out.resolve("part-1.arrow"), out.resolve("part-2.arrow"), out.resolve("part-3.arrow"));
      assertEquals(original.count(), TypedFiles.read(parts, memory).size());
    }
  }

  @Test
  void appendAddsNumberedPartsAndOverwriteReplacesThem() throws Exception {
    Path out = dir.resolve("append");
    Dataset<Row> ten = spark.range(10).toDF("id").coalesce(1);
    ten.write().format("memwall").mode("append").save(out.toString());
    ten.write().format("memwall").mode("append").save(out.toString());
    assertEquals(List.of("part-1.arrow", "part-2.arrow"), names(out));
    assertEquals(20, read(out).count());
    assertEquals(90, read(out).agg(functions.sum("id")).first().getLong(0));

    spark.range(3).toDF("id").coalesce(1).write().format("memwall").mode("overwrite").save(out.toString());
    assertEquals(List.of("part-1.arrow"), names(out));
    assertEquals(3, read(out).count());
  }

  @Test
  void aTableOptionWritesThatTableBesideOthers() throws Exception {
    Path out = dir.resolve("tables");
    spark.range(5).toDF("k").coalesce(1).write().format("memwall").option("table", "a").mode("append").save(out.toString());
    spark.range(7).toDF("k").coalesce(1).write().format("memwall").option("table", "b").mode("append").save(out.toString());
    spark.range(2).toDF("k").coalesce(1).write().format("memwall").option("table", "a").mode("overwrite")
        .save(out.toString());
    assertEquals(List.of("a-1.arrow", "b-1.arrow"), names(out));
    assertEquals(2, spark.read().format("memwall").option("table", "a").load(out.toString()).count());
    assertEquals(7, spark.read().format("memwall").option("table", "b").load(out.toString()).count());
  }

  @Test
  void aColumnThatWouldNotReadBackIsRefusedBeforeAnythingIsWritten() {
    Path out = dir.resolve("refused");
    Dataset<Row> flags = spark.range(3).toDF("id").withColumn("flag", functions.col("id").gt(1));
    var e = assertThrows(IllegalArgumentException.class,
        () -> flags.write().format("memwall").mode("overwrite").save(out.toString()));
    assertTrue(e.getMessage().contains("column 'flag' of type boolean"), e.getMessage());
    assertTrue(Files.notExists(out), "nothing written");
  }

  @Test
  void aSchemaOtherThanTheFilesOwnIsRefusedOnRead() {
    var e = assertThrows(IllegalArgumentException.class, () -> spark.read().format("memwall")
        .schema("id int, other string").load(typed.toString()).collectAsList());
    assertTrue(e.getMessage().contains("reads the files' own schema"), e.getMessage());
  }

  @Test
  void aFailingJobLeavesNoFileAndTheDataSetAsItWas() throws Exception {
    Path out = dir.resolve("failing");
    spark.range(4).toDF("id").coalesce(1).write().format("memwall").mode("overwrite").save(out.toString());
    spark.udf().register("failAt", (Long id) -> {
      if (id == 150_000L) {
        throw new IllegalStateException("row " + id + " is bad");
      }
      return id;
    }, DataTypes.LongType);
    Dataset<Row> failing = spark.range(0, 200_000, 1, 2).toDF("id").selectExpr("failAt(id) as id");
    var e = assertThrows(Exception.class, () -> failing.write().format("memwall").mode("overwrite").save(out.toString()));
    assertTrue(String.valueOf(e.getMessage()).contains("row 150000 is bad") || causes(e).contains("row 150000 is bad"),
        causes(e));
    // Spark fails the job without waiting for the tasks it kills; those delete their files as they end
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!names(out).equals(List.of("part-1.arrow")) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(List.of("part-1.arrow"), names(out), "the earlier data set, and no temporary file");
    assertEquals(4, read(out).count());
  }

  @Test
  void theNextWriteDeletesTemporaryFilesADeadJobLeft() throws Exception {
    Path out = dir.resolve("stale");
    spark.range(4).toDF("id").coalesce(1).write().format("memwall").mode("overwrite").save(out.toString());
    Path stale = Files.writeString(out.resolve(".part-2.arrow.5eed.task-7.tmp"), "half a file");
    Path foreign = Files.writeString(out.resolve(".someone-elses.tmp"), "not ours");
    assertEquals(4, read(out).count(), "reads skip temporary files");
    spark.range(2).toDF("id").coalesce(1).write().format("memwall").mode("append").save(out.toString());
    assertTrue(Files.notExists(stale), "the dead job's temporary file");
    assertTrue(Files.exists(foreign), "only memwall's temporary names are deleted");
    assertEquals(6, read(out).count());
  }


  private static String causes(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      text.append(t).append('\n');
    }
    return text.toString();
  }
}
