package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file whose string offsets point past their data, read through the connector: a query reading that
 * column fails with memwall's error naming the file, batch and column, and frees its task's memory; a
 * query that does not read it runs, since tasks validate only what they read.
 */
class CorruptFileTest {
  @TempDir static Path dir;
  static SparkSession spark;
  static Path file;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SparkTestSession.start("CorruptFileTest");
    file = dir.resolve("broken.arrow");
    try (RootAllocator allocator = new RootAllocator();
        IntVector ids = new IntVector("id", allocator);
        VarCharVector names = new VarCharVector("name", allocator)) {
      for (int i = 0; i < 10; i++) {
        ids.setSafe(i, i);
        names.setSafe(i, ("n" + i).getBytes(StandardCharsets.US_ASCII));
      }
      ids.setValueCount(10);
      names.setValueCount(10);
      names.getOffsetBuffer().setInt(4L * 5, 1 << 20); // row 4 ends a megabyte past the data
      try (VectorSchemaRoot root = new VectorSchemaRoot(List.of(ids, names));
          FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
          ArrowFileWriter writer = new ArrowFileWriter(root, null, channel)) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    }
  }

  @AfterAll
  static void tearDown() {
    SparkTestSession.stop(spark);
  }

  @Test
  void aQueryReadingTheBrokenColumnFailsNamingItAndOneNotReadingItRuns() {
    Exception e = assertThrows(Exception.class,
        () -> spark.read().format("memwall").load(file.toString()).select("name").collectAsList());
    StringBuilder causes = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      causes.append(t).append('\n');
    }
    assertTrue(causes.toString().contains("CorruptArrowFileException") && causes.toString().contains("broken.arrow")
        && causes.toString().contains("record batch 0, column name"), causes.toString());
    SparkTestSession.assertTaskResourcesFreed();

    assertEquals(45L, spark.read().format("memwall").load(file.toString()).selectExpr("sum(id)").first().getLong(0));
    SparkTestSession.assertTaskResourcesFreed();
  }
}
