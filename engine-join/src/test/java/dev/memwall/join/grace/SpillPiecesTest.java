package dev.memwall.join.grace;

import dev.memwall.join.prefetch.BucketTable;
import dev.memwall.join.prefetch.SpillRecords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.join.common.JoinSpillException;
import dev.memwall.join.prefetch.PrefetchTuning;
import dev.memwall.join.prefetch.PrefetchingHashJoin;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The pieces of the spilling joins: partition count, pages, table size, cell arrays, spill files, the split. */
@ExtendWith(LeakCheck.class)
class SpillPiecesTest {
  @TempDir
  Path root;

  @Test
  void partitionCountIsCeilOfFudgedBuildSizeOverMemory() {
    assertEquals(1, GraceHashJoin.partitionCount(0, 100));
    assertEquals(1, GraceHashJoin.partitionCount(10, 480)); // 1.2 * 400 = 480
    assertEquals(2, GraceHashJoin.partitionCount(10, 479));
    assertEquals(10, GraceHashJoin.partitionCount(1_000_000, 1_000_000L * BucketTable.BYTES_PER_TUPLE / 8));
  }

  @Test
  void partitionPagesThatFitTheCacheArePartitionedPlain(@TempDir Path dir) {
    GraceHashJoin.Settings group = new GraceHashJoin.Settings(1 << 20, dir, Long.MAX_VALUE, false, null,
        PrefetchingHashJoin.Mode.GROUP, new PrefetchTuning(8, 2), 512 << 10);
    assertEquals(PrefetchingHashJoin.Mode.PLAIN, group.partitionForm(64, 8 << 10), "64 pages of 8 KiB fit 512 KiB");
    assertEquals(PrefetchingHashJoin.Mode.GROUP, group.partitionForm(65, 8 << 10));
    assertEquals(PrefetchingHashJoin.Mode.GROUP, group.partitionForm(4096, 8 << 10));
    assertEquals(PrefetchingHashJoin.Mode.PLAIN,
        new GraceHashJoin.Settings(1 << 20, dir, Long.MAX_VALUE, false, null).partitionForm(4096, 8 << 10));
    assertThrows(IllegalArgumentException.class, () -> new GraceHashJoin.Settings(1 << 20, dir, Long.MAX_VALUE,
        false, null, PrefetchingHashJoin.Mode.GROUP, new PrefetchTuning(8, 2), -1));
  }

  @Test
  void spillFilesRoundTripAndVanishOnClose(EngineMemory memory) throws IOException {
    Path dir;
    try (SpillDirectory spill = SpillDirectory.create(root, Long.MAX_VALUE);
        OffHeapBuffer page = memory.allocate(256); OffHeapBuffer back = memory.allocate(512)) {
      dir = spill.path();
      for (int i = 0; i < 64; i++) {
        page.segment().setAtIndex(SpillRecords.INT, i, i);
      }
      SpillFile file = spill.newFile("t");
      file.append(page.segment());
      file.append(page.segment());
      assertEquals(512, file.size());
      file.read(0, back.segment());
      assertEquals(63, back.segment().getAtIndex(SpillRecords.INT, 127));
      assertEquals(512, spill.peakBytes());
      assertTrue(Files.exists(file.path()));
    }
    assertFalse(Files.exists(dir), "the spill directory must be removed");
  }

  @Test
  void quotaRefusesTheFirstPageOverIt(EngineMemory memory) {
    try (SpillDirectory spill = SpillDirectory.create(root, 300); OffHeapBuffer page = memory.allocate(256)) {
      SpillFile file = spill.newFile("t");
      file.append(page.segment());
      JoinSpillException e = assertThrows(JoinSpillException.class, () -> file.append(page.segment()));
      assertEquals(JoinSpillException.Reason.DISK_FULL, e.reason());
      file.delete();
      spill.newFile("u").append(page.segment()); // deleting made room again
    }
  }

  @Test
  void aFullDeviceIsRecognised() throws IOException {
    Path full = Path.of("/dev/full");
    Assumptions.assumeTrue(Files.isWritable(full), "needs /dev/full");
    try (FileChannel channel = FileChannel.open(full, StandardOpenOption.WRITE)) {
      IOException e = assertThrows(IOException.class, () -> channel.write(ByteBuffer.allocate(4096)));
      assertTrue(SpillDirectory.isDiskFull(e), e.getMessage());
    }
    assertFalse(SpillDirectory.isDiskFull(new IOException("Input/output error")));
  }

  @Test
  void hybridKeepsWhatFitsAndGraceNothing() {
    long[] counts = {100, 100, 0, 100, 100};
    SpillRates rates = new SpillRates(200e6, 150e6, 5e9);
    long memory = 250L * BucketTable.BYTES_PER_TUPLE + 3L * 256; // two partitions and the pages of the others
    HybridSplit.Plan hybrid = HybridSplit.choose(counts, 400, memory, 256, true, rates);
    assertEquals(List.of(true, true, true, false, false), toList(hybrid.resident()));
    assertEquals(200, hybrid.residentTuples());
    HybridSplit.Plan grace = HybridSplit.choose(counts, 400, memory, 256, false, rates);
    assertEquals(List.of(false, false, true, false, false), toList(grace.resident()), "empty partitions need no spill");
    assertTrue(hybrid.predictedSpillSeconds() < grace.predictedSpillSeconds());
    // eq. 1 by hand: half of 400 build and 400 probe tuples spilled: 400 * 16 bytes written and read
    double bytes = 400 * 16.0;
    assertEquals(bytes / 200e6 + bytes / 150e6, hybrid.predictedSpillSeconds(), 1e-12);
  }

  private static List<Boolean> toList(boolean[] values) {
    Boolean[] boxed = new Boolean[values.length];
    for (int i = 0; i < values.length; i++) {
      boxed[i] = values[i];
    }
    return List.of(boxed);
  }
}
