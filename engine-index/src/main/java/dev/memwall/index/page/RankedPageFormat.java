package dev.memwall.index.page;

import java.lang.foreign.MemorySegment;

/**
 * A {@link PageFormat} whose entries sit in one sorted sequence, addressed by rank: the handle of
 * an entry is its index {@code 0 .. count-1} and an insertion point is the index the new entry
 * takes. Subclasses supply the in-page {@link #search}; navigation, bounds and ranks follow from
 * it here. A full page is always worth rebuilding ({@link #reorganizeLimit()} is the capacity).
 *
 * <p>Thread safety: immutable; see {@link PageFormat}. Owns no memory.
 */
public abstract class RankedPageFormat extends AbstractPageFormat {
  protected RankedPageFormat(int pageBytes, int keyBytes, int valueBytes) {
    super(pageBytes, keyBytes, valueBytes);
  }

  /**
   * The index of the first entry with key {@code > key} ({@code strict}) or {@code >= key}
   * (otherwise), {@code count} if there is none.
   */
  protected abstract int search(MemorySegment s, long base, long key, boolean strict);

  @Override
  public int reorganizeLimit() {
    return capacity();
  }

  @Override
  public final long lowerBound(MemorySegment s, long base, long key) {
    int i = search(s, base, key, false);
    return i < count(s, base) ? i : END;
  }

  @Override
  public final long upperBound(MemorySegment s, long base, long key) {
    int i = search(s, base, key, true);
    return i < count(s, base) ? i : END;
  }

  @Override
  public final long insertionPoint(MemorySegment s, long base, long key) {
    return search(s, base, key, true);
  }

  @Override
  public final long first(MemorySegment s, long base) {
    return count(s, base) > 0 ? 0 : END;
  }

  @Override
  public final long last(MemorySegment s, long base) {
    int n = count(s, base);
    return n > 0 ? n - 1 : END;
  }

  @Override
  public final long next(MemorySegment s, long base, long h) {
    return h + 1 < count(s, base) ? h + 1 : END;
  }

  @Override
  public final int rank(MemorySegment s, long base, long h) {
    return h == END ? count(s, base) : (int) h;
  }
}
