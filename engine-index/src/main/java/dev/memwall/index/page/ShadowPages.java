package dev.memwall.index.page;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The physical pages of a shadow-paged {@link PageFile}: which are free, which were written since
 * the last commit, and which the last commit still references although the tree has replaced
 * them. What the disk trees share to keep their commit invariant: a page the last commit
 * references is never handed out again before the next commit.
 *
 * <ul>
 *   <li>{@link #allocate} hands out a free page (or grows the file) and remembers it as written
 *       since the commit: the writer may change such a page in place.
 *   <li>{@link #freeAfterCommit} takes a committed page the tree no longer uses: it becomes free
 *       only once {@link #committed} says the new commit is durable.
 *   <li>{@link #freeNow} takes a page written since the commit that nothing references any more:
 *       it is free at once (its buffer-pool frame is dropped, so optimistic readers that still
 *       hold it fail validation).
 * </ul>
 *
 * <p>Thread safety: for the tree's single writer thread only.
 */
public final class ShadowPages {
  private final PageFile file;
  private final BufferPool pool;
  private final BitSet writtenSinceCommit = new BitSet();
  private int[] free = new int[16];
  private int freeCount;
  private int[] pending = new int[16];
  private int pendingCount;

  public ShadowPages(PageFile file, BufferPool pool) {
    this.file = file;
    this.pool = pool;
  }

  /** On open: every data page of the file not in {@code used} becomes free. */
  public void reclaimAllBut(BitSet used) {
    for (int p = PageFile.FIRST_DATA_PAGE; p < file.usedPages(); p++) {
      if (!used.get(p)) {
        free = push(free, freeCount++, p);
      }
    }
  }

  /**
   * Makes sure {@code pages} pages can be allocated, growing the file now, so that an update never
   * fails half done.
   *
   * @throws PageFileFullException before anything changes, when the file may not grow that far
   */
  public void reserve(int pages) {
    int fresh = Math.max(0, pages - freeCount);
    if (file.usedPages() + (long) fresh > file.maxPages()) {
      throw new PageFileFullException("page file " + file.path() + " is full: an update may need " + pages
          + " pages, " + freeCount + " free and " + (file.maxPages() - file.usedPages()) + " left to grow");
    }
    file.reserve(fresh);
  }

  /** A free page (or a new one), now counted as written since the last commit. */
  public int allocate() {
    int page = freeCount > 0 ? free[--freeCount] : file.allocatePage();
    writtenSinceCommit.set(page);
    return page;
  }

  /** Whether {@code page} was allocated since the last commit (so no commit references it). */
  public boolean writtenSinceCommit(int page) {
    return writtenSinceCommit.get(page);
  }

  /** A page referenced by the last commit and replaced since: free once the next commit is durable. */
  public void freeAfterCommit(int page) {
    pending = push(pending, pendingCount++, page);
  }

  /** A page written since the last commit that nothing references any more: free at once. */
  public void freeNow(int page) {
    pool.discard(page);
    writtenSinceCommit.clear(page);
    free = push(free, freeCount++, page);
  }

  /** After a durable commit: the replaced pages become free and no page counts as written since. */
  public void committed() {
    for (int i = 0; i < pendingCount; i++) {
      pool.discard(pending[i]);
      free = push(free, freeCount++, pending[i]);
    }
    pendingCount = 0;
    writtenSinceCommit.clear();
  }

  /** Pages free for reuse now. */
  public int freeCount() {
    return freeCount;
  }

  /**
   * Checks that no free or replaced page is in {@code used}.
   *
   * @throws IllegalStateException naming the first such page
   */
  public void checkDisjoint(BitSet used) {
    for (int i = 0; i < freeCount; i++) {
      if (used.get(free[i])) {
        throw new IllegalStateException("page " + free[i] + " is both free and in use");
      }
    }
    for (int i = 0; i < pendingCount; i++) {
      if (used.get(pending[i])) {
        throw new IllegalStateException("replaced page " + pending[i] + " is still in use");
      }
    }
  }

  private static int[] push(int[] pages, int at, int page) {
    int[] into = at == pages.length ? Arrays.copyOf(pages, pages.length * 2) : pages;
    into[at] = page;
    return into;
  }
}
