package dev.memwall.core.spill;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The spill directory the spilling operators share: files, channels, quota, failures, sweeping. */
class SpillDirectoryTest {
  @TempDir
  Path root;

  @Test
  void filesRoundTripThroughSlicesAndChannelsAndVanishOnClose() throws IOException {
    Path path;
    int live = SpillDirectory.liveDirectories();
    try (SpillDirectory spill = SpillDirectory.create(root, Long.MAX_VALUE, "test operator")) {
      path = spill.path();
      assertEquals(live + 1, SpillDirectory.liveDirectories());
      SpillFile file = spill.newFile("t");
      byte[] bytes = new byte[100_000];
      for (int i = 0; i < bytes.length; i++) {
        bytes[i] = (byte) (i * 31);
      }
      WritableByteChannel out = file.appender();
      out.write(ByteBuffer.wrap(bytes, 0, 60_000));
      file.append(MemorySegment.ofArray(bytes).asSlice(60_000));
      assertEquals(bytes.length, file.size());
      byte[] slice = new byte[1000];
      file.read(59_500, MemorySegment.ofArray(slice));
      assertArrayEquals(java.util.Arrays.copyOfRange(bytes, 59_500, 60_500), slice);
      ReadableByteChannel in = file.reader(10);
      ByteBuffer back = ByteBuffer.allocate(bytes.length);
      while (in.read(back) > 0) {
        // read to the end
      }
      assertEquals(bytes.length - 10, back.position());
      assertEquals(-1, in.read(ByteBuffer.allocate(1)));
      assertEquals(bytes[99_999], back.get(99_989));
      assertThrows(IllegalArgumentException.class, () -> file.read(99_990, MemorySegment.ofArray(slice)));
      assertEquals(1, spill.liveFiles());
      assertEquals(bytes.length, spill.writtenBytes());
    }
    assertFalse(Files.exists(path), "the directory must be removed");
    assertEquals(live, SpillDirectory.liveDirectories());
  }

  @Test
  void theQuotaHoldsForWritersOnSeveralThreadsAndDeletingMakesRoom() throws Exception {
    try (SpillDirectory spill = SpillDirectory.create(root, 64_000, "test operator")) {
      AtomicInteger refused = new AtomicInteger();
      List<Thread> writers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        SpillFile file = spill.newFile("w" + t);
        writers.add(Thread.ofPlatform().start(() -> {
          for (int i = 0; i < 40; i++) {
            try {
              file.append(MemorySegment.ofArray(new byte[1000]));
            } catch (SpillException e) {
              assertEquals(SpillException.Reason.DISK_FULL, e.reason());
              assertTrue(e.getMessage().startsWith("test operator: spill quota of 64000 bytes"), e.getMessage());
              refused.incrementAndGet();
            }
          }
        }));
      }
      for (Thread writer : writers) {
        writer.join();
      }
      assertEquals(64_000, spill.peakBytes());
      assertEquals(4 * 40 - 64, refused.get());
      SpillFile another = spill.newFile("x");
      assertThrows(SpillException.class, () -> another.append(MemorySegment.ofArray(new byte[1])));
      another.delete();
      assertEquals(4, spill.liveFiles());
    }
  }

  @Test
  void aRootThatCannotBeADirectoryIsAnIoFailureNamingTheOperator() throws IOException {
    Path file = Files.writeString(root.resolve("file"), "x");
    int live = SpillDirectory.liveDirectories();
    SpillException e = assertThrows(SpillException.class,
        () -> SpillDirectory.create(file.resolve("below"), Long.MAX_VALUE, "sort"));
    assertEquals(SpillException.Reason.IO, e.reason());
    assertEquals("sort", e.operator());
    assertTrue(e.getMessage().startsWith("sort: cannot create a spill directory under " + file.resolve("below")),
        e.getMessage());
    assertEquals(live, SpillDirectory.liveDirectories());
  }

  @Test
  void anInterruptedWriterStopsWithItsInterruptKept() {
    try (SpillDirectory spill = SpillDirectory.create(root, Long.MAX_VALUE, "test operator")) {
      SpillFile file = spill.newFile("t");
      Thread.currentThread().interrupt();
      SpillException e = assertThrows(SpillException.class, () -> file.append(MemorySegment.ofArray(new byte[8])));
      assertTrue(Thread.interrupted(), "the interrupt status must be kept");
      assertEquals(SpillException.Reason.INTERRUPTED, e.reason());
    }
  }
}
