package dev.memwall.index.page;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(LeakCheck.class)
class PageFileTest {
  @TempDir
  Path dir;

  private static void fillPage(MemorySegment page, long seed) {
    Random random = new Random(seed);
    for (long i = PageFile.CHECKSUM_BYTES; i < page.byteSize(); i++) {
      page.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
    }
  }

  private static void flipByte(Path file, long position) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, position);
      one.flip();
      one.put(0, (byte) (one.get(0) ^ 0x5A));
      channel.write(one, position);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {4096, 8192, 16384, 32768})
  void pagesSurviveCommitAndReopen(int pageBytes) {
    Path path = dir.resolve("f" + pageBytes);
    Map<Integer, Long> seeds = new HashMap<>();
    try (Arena arena = Arena.ofConfined(); PageFile file = PageFile.create(path, pageBytes, 1000)) {
      MemorySegment buf = arena.allocate(pageBytes);
      for (int i = 0; i < 100; i++) { // crosses several chunk boundaries
        int page = file.allocatePage();
        fillPage(buf, page * 31L);
        file.write(page, buf);
        seeds.put(page, page * 31L);
      }
      file.commit(new long[] {42, -7});
    }
    try (Arena arena = Arena.ofConfined(); PageFile file = PageFile.open(path, 0, 1000)) {
      assertEquals(pageBytes, file.pageBytes());
      assertArrayEquals(new long[] {42, -7}, file.committedMeta());
      MemorySegment got = arena.allocate(pageBytes);
      MemorySegment want = arena.allocate(pageBytes);
      for (Map.Entry<Integer, Long> e : seeds.entrySet()) {
        file.read(e.getKey(), got);
        fillPage(want, e.getValue());
        assertEquals(-1, got.asSlice(4).mismatch(want.asSlice(4)), "page " + e.getKey());
      }
      assertEquals(PageFile.FIRST_DATA_PAGE + 100, file.usedPages());
    }
  }

  @Test
  void corruptedPageIsReportedWithFileAndPage() throws IOException {
    Path path = dir.resolve("corrupt");
    try (Arena arena = Arena.ofConfined(); PageFile file = PageFile.create(path, 4096, 100)) {
      MemorySegment buf = arena.allocate(4096);
      for (int i = 0; i < 5; i++) {
        int page = file.allocatePage();
        fillPage(buf, page);
        file.write(page, buf);
      }
      file.commit(new long[0]);
    }
    flipByte(path, 6L * 4096 + 1234); // page 6
    try (Arena arena = Arena.ofConfined(); PageFile file = PageFile.open(path, 4096, 100)) {
      MemorySegment buf = arena.allocate(4096);
      file.read(5, buf); // neighbours are fine
      file.read(7, buf);
      CorruptPageException e = assertThrows(CorruptPageException.class, () -> file.read(6, buf));
      assertEquals(6, e.page());
      assertTrue(e.getMessage().contains(path.toString()) && e.getMessage().contains("page 6"), e.getMessage());
    }
  }

  @Test
  void pageWrittenToAnotherPlaceIsDetected() throws IOException {
    Path path = dir.resolve("misplaced");
    try (Arena arena = Arena.ofConfined(); PageFile file = PageFile.create(path, 4096, 100)) {
      MemorySegment buf = arena.allocate(4096);
      int a = file.allocatePage();
      int b = file.allocatePage();
      fillPage(buf, 1);
      file.write(a, buf);
      fillPage(buf, 2);
      file.write(b, buf);
      file.commit(new long[0]);
    }
    byte[] bytes = Files.readAllBytes(path);
    System.arraycopy(bytes, 3 * 4096, bytes, 4 * 4096, 4096); // a sealed copy of page 3 at page 4
    Files.write(path, bytes);
    try (Arena arena = Arena.ofConfined(); PageFile file = PageFile.open(path, 4096, 100)) {
      assertThrows(CorruptPageException.class, () -> file.read(4, arena.allocate(4096)));
    }
  }

  @Test
  void tornNewestCommitRecordFallsBackToThePreviousCommit() throws IOException {
    Path path = dir.resolve("torn");
    try (PageFile file = PageFile.create(path, 4096, 100)) {
      file.commit(new long[] {1});
      file.commit(new long[] {2}); // sequence 2 lives in slot 1 + (2 & 1) = 1
    }
    flipByte(path, 1L * 4096 + 40);
    try (PageFile file = PageFile.open(path, 4096, 100)) {
      assertArrayEquals(new long[] {1}, file.committedMeta());
      assertEquals(1, file.commitSequence());
    }
  }

  @Test
  void foreignFilesAndMismatchesAreRefusedAndLeftAsTheyWere() throws IOException {
    Path foreign = dir.resolve("foreign");
    byte[] text = "this is not a page file at all, just some text that is long enough".getBytes();
    Files.write(foreign, text);
    PageFileFormatException e = assertThrows(PageFileFormatException.class, () -> PageFile.open(foreign, 0, 100));
    assertTrue(e.getMessage().contains("not a memwall page file"), e.getMessage());
    assertArrayEquals(text, Files.readAllBytes(foreign));

    Path empty = dir.resolve("empty");
    Files.write(empty, new byte[0]);
    assertThrows(PageFileFormatException.class, () -> PageFile.open(empty, 0, 100));
    assertEquals(0, Files.size(empty));

    Path real = dir.resolve("real");
    try (PageFile file = PageFile.create(real, 8192, 100)) {
      file.commit(new long[] {5});
    }
    byte[] before = Files.readAllBytes(real);
    PageFileFormatException size = assertThrows(PageFileFormatException.class, () -> PageFile.open(real, 4096, 100));
    assertTrue(size.getMessage().contains("8192-byte pages"), size.getMessage());
    assertArrayEquals(before, Files.readAllBytes(real));

    byte[] otherVersion = before.clone();
    ByteBuffer.wrap(otherVersion).order(java.nio.ByteOrder.nativeOrder()).putInt(16, PageFile.FORMAT_VERSION + 1);
    Files.write(real, otherVersion);
    PageFileFormatException version = assertThrows(PageFileFormatException.class, () -> PageFile.open(real, 0, 100));
    assertTrue(version.getMessage().contains("version " + (PageFile.FORMAT_VERSION + 1)), version.getMessage());
    assertArrayEquals(otherVersion, Files.readAllBytes(real));

    assertThrows(IllegalArgumentException.class, () -> PageFile.create(dir.resolve("x"), 5000, 100));
    assertThrows(IllegalArgumentException.class, () -> PageFile.create(dir.resolve("y"), 65536, 100));
    assertThrows(java.io.UncheckedIOException.class, () -> PageFile.create(real, 4096, 100));
  }

  @Test
  void pageLimitGivesOutOfSpaceAndKeepsTheFileUsable() {
    Path path = dir.resolve("full");
    try (PageFile file = PageFile.create(path, 4096, 6)) {
      file.allocatePage();
      file.allocatePage();
      file.allocatePage();
      PageFileFullException e = assertThrows(PageFileFullException.class, file::allocatePage);
      assertTrue(e.getMessage().contains("full"), e.getMessage());
      file.commit(new long[] {9});
    }
    try (PageFile file = PageFile.open(path, 4096, 6)) {
      assertArrayEquals(new long[] {9}, file.committedMeta());
    }
  }

  @Test
  void clockPoolEvictsWritesBackAndRereads(EngineMemory memory) {
    Path path = dir.resolve("pool");
    Random random = new Random(7);
    Map<Integer, Long> model = new HashMap<>();
    try (PageFile file = PageFile.create(path, 4096, 10_000); BufferPool pool = new BufferPool(file, 8, memory)) {
      for (int step = 0; step < 400; step++) {
        if (model.isEmpty() || random.nextInt(3) == 0) {
          int page = file.allocatePage();
          int frame = pool.pinNew(page);
          long value = random.nextLong();
          pool.beginWrite(frame);
          pool.frames().set(ValueLayout.JAVA_LONG_UNALIGNED, pool.offset(frame) + 100, value);
          pool.endWrite(frame);
          pool.unpin(frame);
          model.put(page, value);
        } else {
          int page = model.keySet().stream().skip(random.nextInt(model.size())).findFirst().orElseThrow();
          int frame = pool.pin(page);
          assertEquals(model.get(page), pool.frames().get(ValueLayout.JAVA_LONG_UNALIGNED, pool.offset(frame) + 100));
          pool.unpin(frame);
        }
      }
      assertTrue(pool.misses() > 0, "an 8-frame pool over " + model.size() + " pages must have missed");
      int[] pinned = new int[8];
      for (int i = 0; i < 8; i++) {
        pinned[i] = pool.pin(PageFile.FIRST_DATA_PAGE + i);
      }
      assertThrows(IllegalStateException.class, () -> pool.pin(PageFile.FIRST_DATA_PAGE + 8));
      for (int f : pinned) {
        pool.unpin(f);
      }
      pool.flush();
      file.commit(new long[0]);
    }
    try (PageFile file = PageFile.open(path, 4096, 10_000); BufferPool pool = new BufferPool(file, 4, memory)) {
      for (Map.Entry<Integer, Long> e : model.entrySet()) {
        int frame = pool.frameOf(e.getKey());
        long stamp = pool.stamp(frame);
        assertEquals(e.getValue(), pool.frames().get(ValueLayout.JAVA_LONG_UNALIGNED, pool.offset(frame) + 100));
        assertTrue(pool.validate(frame, e.getKey(), stamp));
      }
    }
  }

  @Test
  void poolReportsCorruptPagesAndDoesNotCacheThem(EngineMemory memory) throws IOException {
    Path path = dir.resolve("poolcorrupt");
    try (PageFile file = PageFile.create(path, 4096, 100); BufferPool pool = new BufferPool(file, 4, memory)) {
      int frame = pool.pinNew(file.allocatePage());
      pool.unpin(frame);
      pool.flush();
      file.commit(new long[0]);
    }
    flipByte(path, 3L * 4096 + 17);
    try (PageFile file = PageFile.open(path, 4096, 100); BufferPool pool = new BufferPool(file, 4, memory)) {
      assertThrows(CorruptPageException.class, () -> pool.pin(3));
      assertThrows(CorruptPageException.class, () -> pool.frameOf(3));
    }
  }
}
