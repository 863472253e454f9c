package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.spark.DataSetFiles.FileInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Spark's split rule over record batches: the size limit, whole batches, every batch read once in order. */
class InputSplitsTest {
  private static final long MIB = 1 << 20;

  /** A file whose column {@code c} has the given bytes per batch, and 10 rows per byte-MiB. */
  private static FileInfo file(String name, long... batchBytes) {
    long[] rows = new long[batchBytes.length];
    long total = 0;
    for (int i = 0; i < rows.length; i++) {
      rows[i] = 10 * (batchBytes[i] / MIB) + 1;
      total += rows[i];
    }
    return new FileInfo(Path.of(name), total, 0, new Schema(List.of()), Map.of(), rows, Map.of("c", batchBytes));
  }

  private static List<String> describe(List<MemwallInputPartition> partitions) {
    return partitions.stream().map(p -> p.path() + ":" + p.firstBatch() + "+" + p.batches()).toList();
  }

  @Test
  void maxSplitBytesFollowsSparksRule() {
    InputSplits splits = new InputSplits(128 * MIB, 4 * MIB, 2);
    assertEquals(128 * MIB, splits.maxSplitBytes(1000 * MIB, 4), "capped by maxPartitionBytes");
    assertEquals(52 * MIB, splits.maxSplitBytes(100 * MIB, 1), "(100 + 4) / 2 cores");
    assertEquals(4 * MIB, splits.maxSplitBytes(MIB, 1), "at least the open cost");
  }

  @Test
  void aBigFileIsCutForEveryCoreAndSmallFilesStayWhole() {
    InputSplits splits = new InputSplits(128 * MIB, 4 * MIB, 2);
    FileInfo orders = file("orders", 12 * MIB, 12 * MIB, 12 * MIB, 12 * MIB, 12 * MIB, 12 * MIB, 12 * MIB, 12 * MIB);
    assertEquals(List.of("orders:0+4", "orders:4+4"), describe(splits.split(List.of(orders), List.of("c"))));
    FileInfo nation = file("nation", 1000);
    FileInfo region = file("region", 500);
    assertEquals(List.of("nation:0+1", "region:0+1"), describe(splits.split(List.of(nation, region), List.of("c"))));
  }

  @Test
  void aBatchLargerThanTheLimitStaysWholeAndUnreadColumnsCountNothing() {
    InputSplits splits = new InputSplits(10 * MIB, 0, 8);
    FileInfo file = file("f", 3 * MIB, 40 * MIB, 3 * MIB, 3 * MIB);
    assertEquals(List.of("f:0+1", "f:1+1", "f:2+2"), describe(splits.split(List.of(file), List.of("c"))));
    assertEquals(List.of("f:0+4"), describe(splits.split(List.of(file), List.of())), "no column read: one split");
  }

  @Test
  void everyBatchIsReadExactlyOnceInOrderForRandomFiles() {
    Random random = new Random(42);
    for (int trial = 0; trial < 500; trial++) {
      List<FileInfo> files = new ArrayList<>();
      for (int f = 0; f < 1 + random.nextInt(4); f++) {
        long[] bytes = new long[random.nextInt(6)];
        for (int b = 0; b < bytes.length; b++) {
          bytes[b] = random.nextInt(3) == 0 ? 0 : random.nextLong(64 * MIB);
        }
        files.add(file("f" + f, bytes));
      }
      InputSplits splits = new InputSplits(1 + random.nextLong(64 * MIB), random.nextLong(8 * MIB), 1 + random.nextInt(8));
      List<MemwallInputPartition> partitions = splits.split(files, List.of("c"));
      List<String> read = new ArrayList<>();
      long rows = 0;
      for (MemwallInputPartition p : partitions) {
        for (int b = p.firstBatch(); b < p.firstBatch() + p.batches(); b++) {
          read.add(p.path() + ":" + b);
        }
        rows += p.rows();
      }
      List<String> all = new ArrayList<>();
      long allRows = 0;
      for (FileInfo file : files) {
        for (int b = 0; b < file.batchRows().length; b++) {
          all.add(file.path() + ":" + b);
        }
        allRows += file.rows();
      }
      assertEquals(all, read, "trial " + trial);
      assertEquals(allRows, rows, "trial " + trial);
    }
  }

  @Test
  void badSettingsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new InputSplits(0, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new InputSplits(1, 0, 0));
  }
}
