package dev.memwall.index.fpb;

import static dev.memwall.index.fpb.NodePointer.NULL;
import static dev.memwall.index.fpb.NodePointer.lineOf;
import static dev.memwall.index.fpb.NodePointer.nodeAt;
import static dev.memwall.index.fpb.NodePointer.pageOf;
import static dev.memwall.index.fpb.NodePointer.ptr;
import static dev.memwall.index.fpb.PageKinds.PAGE_OVERFLOW;

import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.PageFile;
import dev.memwall.index.page.ShadowPages;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The writer's working copy of the cache-first tree: its shape (root pointer, height, jump-pointer
 * array, logical page count, current overflow page), heap images of the pages the update under way
 * reads and changes, and the installation that makes an update visible to readers all at once
 * (see the package documentation, Concurrency). Updates ({@link Updates}, {@link Bulkload}) change
 * images only; {@link #installImages} copies them into the buffer pool and publishes a new
 * {@link View} through the {@link Publication}.
 *
 * <p>Why a class: every writer operation works on page images and ends with an install; keeping
 * both here leaves the operations free of frames, stamps and publication. Writer thread only
 * (one writer, as the tree's contract says); it owns no memory of its own beyond the heap images,
 * which it drops after each install. A failing update is undone with {@link #restore}: its images
 * are dropped and the shape saved by {@link #save} comes back, so the failure changes nothing.
 */
final class WorkingTree {
  final Publication pub;
  final CacheFirstFormat format;
  final BufferPool pool;
  final PageFile file;
  final ShadowPages shadow;
  final int pageBytes;
  private final MemorySegment frames;

  // the tree's shape, published through pub.view by installImages
  long rootPtr;
  int height;
  JumpArray jump = new JumpArray(new int[0], new int[0]);
  int logicalCount;
  int overflowPage = -1;

  /** Bulkload under way: no reader can reach the tree yet, so pages are installed in place. */
  boolean building;
  private final Map<Integer, Image> images = new LinkedHashMap<>();

  WorkingTree(Publication pub, CacheFirstFormat format, BufferPool pool, PageFile file, ShadowPages shadow) {
    this.pub = pub;
    this.format = format;
    this.pool = pool;
    this.file = file;
    this.shadow = shadow;
    this.pageBytes = format.pageBytes();
    this.frames = pool.frames();
  }

  /** The image of logical page {@code logical}, copied from its frame on first use in this update. */
  private Image image(int logical) {
    Image im = images.get(logical);
    if (im == null) {
      im = new Image(logical, MemorySegment.ofArray(new byte[pageBytes]));
      int phys = physOf(logical);
      int frame = pool.pin(phys);
      try {
        MemorySegment.copy(frames, pool.offset(frame), im.s, 0, pageBytes);
      } finally {
        pool.unpin(frame);
      }
      images.put(logical, im);
    }
    return im;
  }

  /** The image of the page of node {@code ptr}, for reading. */
  MemorySegment read(long ptr) {
    return image(pageOf(ptr)).s;
  }

  /** The image of the page of node {@code ptr}, for changing: it is installed with the update. */
  MemorySegment write(long ptr) {
    Image im = image(pageOf(ptr));
    im.dirty = true;
    return im.s;
  }

  /** The image of logical page {@code logical}, for changing. */
  MemorySegment writePage(int logical) {
    Image im = image(logical);
    im.dirty = true;
    return im.s;
  }

  /** A new logical page of {@code kind}, empty, as a dirty image. */
  int newPage(int kind) {
    int logical = logicalCount++;
    Image im = new Image(logical, MemorySegment.ofArray(new byte[pageBytes]));
    im.dirty = true;
    format.setPageKind(im.s, 0, kind);
    images.put(logical, im);
    return logical;
  }

  /** Takes a free slot of {@code page} (which must have one) for a node of {@code kind} at {@code level}. */
  long allocNode(int page, int kind, int level) {
    MemorySegment s = writePage(page);
    int slot = format.freeSlot(s, 0);
    if (slot < 0) {
      throw new IllegalStateException("page " + page + " has no free slot");
    }
    format.setSlotUsed(s, 0, slot, true);
    long ptr = ptr(page, format.lineOf(slot));
    long node = nodeAt(ptr);
    s.asSlice(node, format.nodeBytes()).fill((byte) 0);
    format.setNodeKind(s, node, kind);
    format.setLevel(s, node, level);
    if (kind == CacheFirstFormat.NODE_LEAF) {
      format.setNext(s, node, NULL);
    }
    return ptr;
  }

  /** Frees the slot of node {@code ptr} in its page. */
  void freeNode(long ptr) {
    MemorySegment s = write(ptr);
    format.setSlotUsed(s, 0, format.slotOf(lineOf(ptr)), false);
  }

  /** Whether logical page {@code page} has a free node slot. */
  boolean hasFreeSlot(int page) {
    return format.usedSlots(read(ptr(page, 0)), 0) < format.slots();
  }

  /** The physical page the published map gives logical page {@code logical} (writer side). */
  int physOf(int logical) {
    return pub.view.map().get(logical);
  }

  /**
   * Installs the update so that a reader sees all of it or none of it. An update that changes one
   * page written since the last commit and nothing else (the common insert or delete) overwrites
   * that page in place between {@link BufferPool#beginWrite} and {@link BufferPool#endWrite}: the
   * frame's stamp alone makes it atomic. Any other update copies every dirty image to a fresh
   * physical page (never one the last commit or the published map references), then publishes the
   * new map together with the root, height, jump-pointer array and page count in one volatile store
   * of {@link Publication#view}, and only then retires the physical pages it replaced: pages written
   * since the last commit are dropped from the pool and reused at once, committed ones are freed by
   * the next sync. A failure before the publication (or the in-place copy) changes nothing readers
   * can see; fresh pages go back to the free list.
   */
  void installImages() {
    if (building) {
      installInPlace();
      return;
    }
    pub.installs = pub.installs + 1; // odd: readers relying on an unchanged tree (Reader#validAll) retry
    VarHandle.storeStoreFence(); // ... if they see any page write or publication below
    try {
      install();
    } finally {
      pub.installs = pub.installs + 1;
    }
  }

  private void install() {
    View published = pub.view;
    PageMap map = published.map();
    int dirty = 0;
    Image only = null;
    for (Image im : images.values()) {
      if (im.dirty) {
        dirty++;
        only = im;
      }
    }
    int onlyPhys = only == null ? -1 : map.get(only.logical);
    if (dirty == 1 && onlyPhys >= 0 && shadow.writtenSinceCommit(onlyPhys) && rootPtr == published.root()
        && height == published.height() && jump == published.jump() && logicalCount == published.pages()) {
      // one uncommitted page changes and nothing else: its frame's stamp alone makes the change atomic
      writeFrame(pool.pin(onlyPhys), only);
      images.clear();
      return;
    }
    int[] logicals = new int[dirty];
    int[] copies = new int[dirty];
    int made = 0;
    try {
      for (Image im : images.values()) {
        if (!im.dirty) {
          continue;
        }
        int copy = shadow.allocate();
        logicals[made] = im.logical;
        copies[made++] = copy;
        writeFrame(pool.pinNew(copy), im);
      }
    } catch (RuntimeException | Error e) {
      for (int i = 0; i < made; i++) {
        shadow.freeNow(copies[i]);
      }
      throw e;
    }
    // the publication: the volatile store orders every page write above before any reader's use
    pub.view = new View(map.with(logicals, copies, made), rootPtr, height, jump, logicalCount);
    images.clear();
    for (int i = 0; i < made; i++) {
      int old = map.get(logicals[i]);
      if (old < 0) {
        continue;
      }
      if (shadow.writtenSinceCommit(old)) {
        shadow.freeNow(old);
      } else {
        shadow.freeAfterCommit(old);
      }
    }
  }

  /** Copies a page image into a pinned frame under an odd stamp, then unpins it. */
  private void writeFrame(int frame, Image image) {
    try {
      pool.beginWrite(frame);
      MemorySegment.copy(image.s, 0, frames, pool.offset(frame), pageBytes);
      pool.endWrite(frame);
    } finally {
      pool.unpin(frame);
    }
    CacheFirstTree.Probe p = pub.probe;
    if (p != null) {
      p.afterFrameWrite();
    }
  }

  /**
   * Bulkload's install, while no reader can hold the tree yet: pages written since the last commit
   * are overwritten in place (so bulkloaded leaf pages stay in file order), others get fresh pages.
   */
  private void installInPlace() {
    PageMap map = pub.view.map();
    int[] logicals = new int[images.size()];
    int[] copies = new int[images.size()];
    int made = 0;
    for (Image im : images.values()) {
      if (!im.dirty) {
        continue;
      }
      int phys = map.get(im.logical);
      int frame;
      if (phys < 0 || !shadow.writtenSinceCommit(phys)) {
        int copy = shadow.allocate();
        if (phys >= 0) {
          shadow.freeAfterCommit(phys);
        }
        frame = pool.pinNew(copy);
        logicals[made] = im.logical;
        copies[made++] = copy;
      } else {
        frame = pool.pin(phys);
      }
      writeFrame(frame, im);
    }
    pub.view = new View(map.with(logicals, copies, made), rootPtr, height, jump, logicalCount);
    images.clear();
  }


  /** The current overflow page if it has a free slot, else a new one. */
  int overflowWithRoom() {
    if (overflowPage < 0 || !hasFreeSlot(overflowPage)) {
      overflowPage = newPage(PAGE_OVERFLOW);
    }
    return overflowPage;
  }

  /** Tree fields saved before an update, restored when it fails before installing its images. */
  record Saved(long root, int height, int logicalCount, int overflowPage, JumpArray jump) {}

  Saved save() {
    return new Saved(rootPtr, height, logicalCount, overflowPage, jump);
  }

  /** Undoes a failed update: drops its images and restores the shape saved before it. */
  void restore(Saved s) {
    images.clear();
    rootPtr = s.root();
    height = s.height();
    logicalCount = s.logicalCount();
    overflowPage = s.overflowPage();
    jump = s.jump();
  }

  /** Drops the page images (after a read-only walk, or an update that changed nothing). */
  void dropImages() {
    images.clear();
  }
}
