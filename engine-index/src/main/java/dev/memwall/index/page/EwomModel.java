package dev.memwall.index.page;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.BitSet;

/**
 * The EWOM cost model of one {@link PageFile}: classifies each page write by comparing the new
 * image with the page's previous image on the device (see {@link EwomCounts} for the classes).
 *
 * <p><b>Erased pages.</b> Flash erases to all ones, so a page the file hands out fresh (past every
 * page in use when the model was switched on, or since) starts erased in the model: its first
 * write only clears bits and is an in-place update, as programming an erased flash page is. The
 * file itself fills new pages with zeros; the model keeps the difference in a bit set rather than
 * writing ones to the file. A page handed out again (a freed page the writer reuses) keeps the
 * image it had.
 *
 * <p><b>Checksum bytes.</b> The first {@value PageFile#CHECKSUM_BYTES} bytes of a page (its CRC32C)
 * are left out of the comparison: they stand for the error-correcting code a flash device keeps in
 * each page's spare area, which the model does not cover; counted, they would make almost every
 * write a page-write step whatever the page format does.
 *
 * <p><b>Cost.</b> Classifying reads the old image once more than the write does (a pass of 8-byte
 * words over the page); the model is off until {@link PageFile#enableEwomModel()} because for a
 * page not in the OS page cache that pass is a device read the write path otherwise never makes.
 *
 * <p>Thread safety: used by the page file's writer thread only; the counter fields are read by
 * {@link PageFile#ewomCounts()} from the same thread.
 */
final class EwomModel {
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final BitSet erased = new BitSet();
  private final int pageBytes;
  /** Pages below this number existed when the model started or were handed out since. */
  private long handedOut;
  private long pageWriteSteps;
  private long inPlaceUpdates;
  private long inPlaceBytes;
  private long unchangedWrites;

  EwomModel(int pageBytes, long pagesInUse) {
    this.pageBytes = pageBytes;
    this.handedOut = pagesInUse;
  }

  /** The file handed out page {@code page}: erased in the model if it was never handed out before. */
  void allocated(long page) {
    if (page >= handedOut) {
      erased.set((int) page);
      handedOut = page + 1;
    }
  }

  /** Classifies the write of {@code next} over {@code old} (page {@code page}'s image on the device). */
  void written(long page, MemorySegment old, MemorySegment next) {
    boolean wasErased = erased.get((int) page);
    erased.clear((int) page);
    boolean rises = false;
    long changedBytes = 0;
    for (long at = 0; at < pageBytes; at += Long.BYTES) {
      long before = wasErased ? -1L : old.get(LONG, at);
      long after = next.get(LONG, at);
      if (at == 0) { // the checksum bytes (the word's low half, little-endian) are outside the model
        before |= 0xFFFF_FFFFL;
        after |= 0xFFFF_FFFFL;
      }
      long diff = before ^ after;
      if (diff != 0) {
        rises |= (~before & after) != 0;
        changedBytes += changedBytes(diff);
      }
    }
    if (rises) {
      pageWriteSteps++;
    } else if (changedBytes > 0) {
      inPlaceUpdates++;
      inPlaceBytes += changedBytes;
    } else {
      unchangedWrites++;
    }
  }

  /** Non-zero bytes of {@code x}. */
  static int changedBytes(long x) {
    long y = x | (x >>> 4);
    y |= y >>> 2;
    y |= y >>> 1;
    return Long.bitCount(y & 0x0101_0101_0101_0101L);
  }

  EwomCounts counts() {
    return new EwomCounts(pageWriteSteps, inPlaceUpdates, inPlaceBytes, unchangedWrites);
  }
}
