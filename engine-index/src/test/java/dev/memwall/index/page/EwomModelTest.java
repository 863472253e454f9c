package dev.memwall.index.page;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The EWOM classification of page writes, on hand-made page images. */
class EwomModelTest {
  private static final int PAGE = 4096;

  @TempDir
  Path dir;

  private static MemorySegment image(Arena arena, byte fill) {
    MemorySegment s = arena.allocate(PAGE);
    s.fill(fill);
    return s;
  }

  @Test
  void freshPageStartsErasedSoItsFirstWriteIsInPlace() {
    try (PageFile file = PageFile.create(dir.resolve("f"), PAGE, 64); Arena arena = Arena.ofConfined()) {
      file.enableEwomModel();
      int page = file.allocatePage();
      MemorySegment img = image(arena, (byte) 0xFF);
      img.set(PageFormat.LONG, 100, 0x00FF_00FF_00FF_00FFL); // four bytes cleared
      file.write(page, img);
      assertEquals(new EwomCounts(0, 1, 4, 0), file.ewomCounts());
    }
  }

  @Test
  void zeroToOneIsAPageWriteStepOneToZeroIsNotAndNoChangeIsCountedApart() {
    try (PageFile file = PageFile.create(dir.resolve("f"), PAGE, 64); Arena arena = Arena.ofConfined()) {
      file.enableEwomModel();
      int page = file.allocatePage();
      MemorySegment img = image(arena, (byte) 0x0F);
      file.write(page, img); // erased -> 0x0F everywhere: clears only
      EwomCounts start = file.ewomCounts();
      assertEquals(new EwomCounts(0, 1, PAGE - PageFile.CHECKSUM_BYTES, 0), start);

      img.set(PageFormat.LONG, 200, 0x0F0F_0F0F_0F0F_0F0EL); // one bit 1 -> 0
      file.write(page, img);
      assertEquals(new EwomCounts(0, 1, 1, 0), file.ewomCounts().minus(start));

      EwomCounts before = file.ewomCounts();
      file.write(page, img); // the same image again (the checksum is rewritten, outside the model)
      assertEquals(new EwomCounts(0, 0, 0, 1), file.ewomCounts().minus(before));

      before = file.ewomCounts();
      img.set(ValueLayout.JAVA_BYTE, PAGE - 1, (byte) 0x1F); // one bit 0 -> 1 at the end
      file.write(page, img);
      assertEquals(new EwomCounts(1, 0, 0, 0), file.ewomCounts().minus(before));
    }
  }

  @Test
  void aWriteThatBothClearsAndSetsBitsIsOnePageWriteStep() {
    try (PageFile file = PageFile.create(dir.resolve("f"), PAGE, 64); Arena arena = Arena.ofConfined()) {
      file.enableEwomModel();
      int page = file.allocatePage();
      MemorySegment img = image(arena, (byte) 0xF0);
      file.write(page, img);
      EwomCounts before = file.ewomCounts();
      img.set(ValueLayout.JAVA_BYTE, 64, (byte) 0x00);
      img.set(ValueLayout.JAVA_BYTE, 65, (byte) 0xF8);
      file.write(page, img);
      assertEquals(new EwomCounts(1, 0, 0, 0), file.ewomCounts().minus(before));
      assertEquals(2, file.ewomCounts().writes());
    }
  }

  @Test
  void pagesInUseWhenTheModelStartsKeepTheirImage() {
    try (PageFile file = PageFile.create(dir.resolve("f"), PAGE, 64); Arena arena = Arena.ofConfined()) {
      int page = file.allocatePage();
      file.write(page, image(arena, (byte) 0x00));
      file.enableEwomModel();
      file.write(page, image(arena, (byte) 0x01)); // zeros on the device: setting bits rises
      assertEquals(new EwomCounts(1, 0, 0, 0), file.ewomCounts());
    }
  }

  @Test
  void aPageHandedOutAgainAfterARollbackKeepsItsImage() {
    try (PageFile file = PageFile.create(dir.resolve("f"), PAGE, 64); Arena arena = Arena.ofConfined()) {
      file.enableEwomModel();
      int used = file.usedPages();
      int page = file.allocatePage();
      file.write(page, image(arena, (byte) 0x00));
      file.rollbackAllocations(used);
      assertEquals(page, file.allocatePage());
      EwomCounts before = file.ewomCounts();
      file.write(page, image(arena, (byte) 0x80));
      assertEquals(new EwomCounts(1, 0, 0, 0), file.ewomCounts().minus(before));
    }
  }

  @Test
  void countsWithoutTheModelAreRefused() {
    try (PageFile file = PageFile.create(dir.resolve("f"), PAGE, 64)) {
      assertFalse(file.ewomModelEnabled());
      IllegalStateException e = assertThrows(IllegalStateException.class, file::ewomCounts);
      assertTrue(e.getMessage().contains("not enabled"));
    }
  }

  /** A random byte written over a random byte: the class follows the bits, whatever the values. */
  @Property(tries = 300)
  void classificationFollowsTheBits(@ForAll @IntRange(min = 0, max = 255) int old, @ForAll @IntRange(min = 0,
      max = 255) int next, @ForAll @IntRange(min = PageFile.CHECKSUM_BYTES, max = PAGE - 1) int at) throws Exception {
    Path tmp = Files.createTempDirectory("ewom");
    Path f = tmp.resolve("p.pages");
    try (PageFile file = PageFile.create(f, PAGE, 64); Arena arena = Arena.ofConfined()) {
      file.enableEwomModel();
      int page = file.allocatePage();
      MemorySegment img = image(arena, (byte) 0x5A);
      img.set(ValueLayout.JAVA_BYTE, at, (byte) old);
      file.write(page, img);
      EwomCounts before = file.ewomCounts();
      img.set(ValueLayout.JAVA_BYTE, at, (byte) next);
      file.write(page, img);
      EwomCounts d = file.ewomCounts().minus(before);
      boolean rises = (~old & next & 0xFF) != 0;
      assertEquals(rises ? 1 : 0, d.pageWriteSteps());
      assertEquals(!rises && old != next ? 1 : 0, d.inPlaceUpdates());
      assertEquals(!rises && old != next ? 1 : 0, d.inPlaceBytes());
      assertEquals(old == next ? 1 : 0, d.unchangedWrites());
    } finally {
      Files.deleteIfExists(f);
      Files.delete(tmp);
    }
  }
}
