package dev.memwall.index.temporal;

import dev.memwall.core.temporal.HeapCharge;
import dev.memwall.core.temporal.TemporalStore;
import dev.memwall.index.disk.DiskIndex;
import dev.memwall.index.page.BufferPool;
import dev.memwall.index.page.CorruptPageException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@link TemporalStore} of a page-file temporal table: entity segments packed in {@link
 * DataPages}, found through the {@link Catalog}; surrogates found through a disk B+-tree ({@link
 * DiskIndex}) mapping each surrogate to its entity index, whose catalog row names its pages.
 *
 * <p><b>Placement.</b> A new entity's segment is appended to its part's fill page, or starts a new
 * fill page when it does not fit: entities share pages in first-append order, as sub-pages do in
 * the paper's PSP pages. A segment that grows is rewritten in its page; when the page overflows it
 * splits in two halves (in record order, as even as the records allow) into it and a new page. A segment
 * longer than a page leaves its shared page for a chain of pages of its own (overflow pages), one
 * record per page.
 *
 * <p><b>Refusals.</b> {@link #room} reserves the pages (file and map) that every segment of the
 * append may need, summed over the append's calls, so {@link #store} never fails half done: a full
 * file is a {@link dev.memwall.index.page.PageFileFullException} before anything changes, a refused
 * heap charge a {@link dev.memwall.core.memory.BudgetExceededException}. Thread safety: one thread.
 */
final class PagedStore implements TemporalStore {
  private final DataPages pages;
  private final Catalog catalog;
  private final DiskIndex index;
  private final HeapCharge charge;
  private final BufferPool pool;
  private final int capacity;
  /** Pages reserved by the room calls of the append under way. */
  private int reserving;
  /** Whether the append under way has begun to store (its next room call starts a new append). */
  private boolean storing;

  PagedStore(DataPages pages, Catalog catalog, DiskIndex index, HeapCharge charge, BufferPool pool) {
    this.pages = pages;
    this.catalog = catalog;
    this.index = index;
    this.charge = charge;
    this.pool = pool;
    this.capacity = pages.capacity();
  }

  @Override
  public int parts() {
    return catalog.parts;
  }

  @Override
  public int entities() {
    return catalog.entities;
  }

  @Override
  public int find(long surrogate) {
    return (int) index.searchFirst(surrogate, -1);
  }

  @Override
  public long surrogate(int entity) {
    return catalog.surrogates[entity];
  }

  @Override
  public long lastTime(int entity) {
    return catalog.lastTimes[entity];
  }

  @Override
  public void setLastTime(int entity, long time) {
    catalog.lastTimes[entity] = time;
  }

  @Override
  public int prepare() {
    catalog.prepare();
    return catalog.entities;
  }

  @Override
  public void commit(long surrogate, long time) {
    int entity = catalog.entities;
    try {
      index.insert(surrogate, entity);
    } catch (RuntimeException e) {
      for (int p = 0; p < catalog.parts; p++) { // the segments stored for it are taken out again
        int logical = catalog.segmentPages[p][entity];
        if (logical >= 0 && catalog.segmentLengths[p][entity] + 1 > capacity) {
          writeChain(p, entity, new long[0], 0, logical);
        } else if (logical >= 0) {
          remove(p, entity, logical);
        }
        catalog.segmentPages[p][entity] = -1;
      }
      throw e;
    }
    catalog.surrogates[entity] = surrogate;
    catalog.lastTimes[entity] = time;
    catalog.entities++;
  }

  @Override
  public int length(int part, int entity) {
    return entity < catalog.entities ? catalog.segmentLengths[part][entity] : 0;
  }

  @Override
  public long[] segment(int part, int entity) {
    int length = catalog.segmentLengths[part][entity];
    long[] out = new long[length];
    int got = 0;
    int logical = catalog.segmentPages[part][entity];
    while (got < length) {
      if (logical < 0) {
        throw new CorruptPageException(pages.path(), -1, "segment " + part + " of entity " + entity
            + " ends after " + got + " of its " + length + " longs");
      }
      DataPages.Page page = pages.read(logical, part);
      int at = recordOf(page.data(), entity);
      if (at < 0) {
        throw new CorruptPageException(pages.path(), pages.physical(logical), "no record of entity " + entity
            + " in logical page " + logical);
      }
      int n = recordLength(page.data()[at]);
      if (n > length - got) {
        throw new CorruptPageException(pages.path(), pages.physical(logical), "record of entity " + entity
            + " holds " + n + " longs, more than the " + (length - got) + " left of its segment");
      }
      System.arraycopy(page.data(), at + 1, out, got, n);
      got += n;
      logical = page.next();
    }
    return out;
  }

  @Override
  public long[] room(int part, int entity, int minLength) {
    if (storing) {
      storing = false;
      reserving = 0;
    }
    int chained = minLength + 1 > capacity ? ceilDiv(minLength, capacity - 1) : 0;
    reserving += chained + 3; // the chain, or the page and the pages a split may add
    pages.reserve(reserving);
    int length = length(part, entity);
    long[] out = new long[Math.max(minLength, length)];
    if (length > 0) {
      System.arraycopy(segment(part, entity), 0, out, 0, length);
    }
    return out;
  }

  @Override
  public void store(int part, int entity, long[] array, int length) {
    storing = true;
    int logical = catalog.segmentPages[part][entity];
    boolean wasChained = logical >= 0 && catalog.segmentLengths[part][entity] + 1 > capacity;
    if (length + 1 > capacity) {
      if (logical >= 0 && !wasChained) {
        remove(part, entity, logical);
        logical = -1;
      }
      catalog.segmentPages[part][entity] = writeChain(part, entity, array, length, logical);
    } else if (logical >= 0) {
      replace(part, entity, logical, array, length);
    } else {
      place(part, entity, array, length);
    }
    catalog.segmentLengths[part][entity] = length;
  }

  // ---- placement -------------------------------------------------------------------------------

  private static int recordOf(long[] data, int entity) {
    for (int at = 0; at < data.length; at += 1 + recordLength(data[at])) {
      if ((int) (data[at] >>> 32) == entity) {
        return at;
      }
    }
    return -1;
  }

  private static int recordLength(long header) {
    return (int) header;
  }

  private static long header(int entity, int longs) {
    return (long) entity << 32 | (longs & 0xFFFF_FFFFL);
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }

  /** A new entity's segment: appended to the fill page, or the first record of a new one. */
  private void place(int part, int entity, long[] array, int length) {
    int fill = catalog.fillPages[part];
    if (fill >= 0) {
      long[] data = pages.read(fill, part).data();
      if (data.length + 1 + length <= capacity) {
        long[] grown = Arrays.copyOf(data, data.length + 1 + length);
        grown[data.length] = header(entity, length);
        System.arraycopy(array, 0, grown, data.length + 1, length);
        pages.write(fill, part, -1, grown, grown.length);
        catalog.segmentPages[part][entity] = fill;
        return;
      }
    }
    int fresh = pages.allocate();
    long[] data = new long[1 + length];
    data[0] = header(entity, length);
    System.arraycopy(array, 0, data, 1, length);
    pages.write(fresh, part, -1, data, data.length);
    catalog.fillPages[part] = fresh;
    catalog.segmentPages[part][entity] = fresh;
  }

  /** Rewrites a segment in its shared page, splitting the page when it no longer fits. */
  private void replace(int part, int entity, int logical, long[] array, int length) {
    long[] data = pages.read(logical, part).data();
    List<long[]> records = new ArrayList<>();
    for (int at = 0; at < data.length; at += 1 + recordLength(data[at])) {
      int owner = (int) (data[at] >>> 32);
      if (owner == entity) {
        long[] own = new long[1 + length];
        own[0] = header(entity, length);
        System.arraycopy(array, 0, own, 1, length);
        records.add(own);
      } else {
        records.add(Arrays.copyOfRange(data, at, at + 1 + recordLength(data[at])));
      }
    }
    List<List<long[]>> groups = split(records);
    int target = logical;
    for (int g = 0; g < groups.size(); g++) {
      if (g > 0) {
        int fresh = pages.allocate();
        if (catalog.fillPages[part] == target) {
          catalog.fillPages[part] = fresh;
        }
        target = fresh;
      }
      long[] packed = new long[capacity];
      int used = 0;
      for (long[] record : groups.get(g)) {
        System.arraycopy(record, 0, packed, used, record.length);
        used += record.length;
        catalog.segmentPages[part][(int) (record[0] >>> 32)] = target;
      }
      pages.write(target, part, -1, packed, used);
    }
  }

  /**
   * The records of a page, in order, in groups that each fit a page: all of them if they fit; else
   * two halves as even in longs as the records allow, as a B-tree splits, so both pages have room to
   * grow; else (a few large records) as many pages as packing them in order takes.
   */
  private List<List<long[]>> split(List<long[]> records) {
    long total = 0;
    for (long[] record : records) {
      total += record.length;
    }
    if (total <= capacity) {
      return List.of(records);
    }
    int best = -1;
    long bestGap = Long.MAX_VALUE;
    long prefix = 0;
    for (int k = 1; k < records.size(); k++) {
      prefix += records.get(k - 1).length;
      if (prefix <= capacity && total - prefix <= capacity && Math.abs(2 * prefix - total) < bestGap) {
        best = k;
        bestGap = Math.abs(2 * prefix - total);
      }
    }
    if (best > 0) {
      return List.of(records.subList(0, best), records.subList(best, records.size()));
    }
    List<List<long[]>> groups = new ArrayList<>();
    List<long[]> group = new ArrayList<>();
    int used = 0;
    for (long[] record : records) {
      if (used + record.length > capacity) {
        groups.add(group);
        group = new ArrayList<>();
        used = 0;
      }
      group.add(record);
      used += record.length;
    }
    groups.add(group);
    return groups;
  }

  /** Takes a segment's record out of its shared page, freeing the page when it was the last. */
  private void remove(int part, int entity, int logical) {
    long[] data = pages.read(logical, part).data();
    int at = recordOf(data, entity);
    if (at < 0) {
      return;
    }
    int n = 1 + recordLength(data[at]);
    long[] rest = new long[data.length - n];
    System.arraycopy(data, 0, rest, 0, at);
    System.arraycopy(data, at + n, rest, at, data.length - at - n);
    if (rest.length == 0) {
      pages.free(logical);
      if (catalog.fillPages[part] == logical) {
        catalog.fillPages[part] = -1;
      }
    } else {
      pages.write(logical, part, -1, rest, rest.length);
    }
    catalog.segmentPages[part][entity] = -1;
  }

  /** Writes a segment longer than a page as a chain of its own pages, reusing {@code first}'s; returns the first. */
  private int writeChain(int part, int entity, long[] array, int length, int first) {
    List<Integer> chain = new ArrayList<>();
    for (int logical = first; logical >= 0; logical = pages.read(logical, part).next()) {
      chain.add(logical);
    }
    int chunk = capacity - 1;
    int count = ceilDiv(length, chunk); // 0 frees the chain

    while (chain.size() < count) {
      chain.add(pages.allocate());
    }
    while (chain.size() > count) {
      pages.free(chain.removeLast());
    }
    long[] data = new long[capacity];
    for (int i = 0; i < count; i++) {
      int from = i * chunk;
      int n = Math.min(chunk, length - from);
      data[0] = header(entity, n);
      System.arraycopy(array, from, data, 1, n);
      pages.write(chain.get(i), part, i + 1 < count ? chain.get(i + 1) : -1, data, 1 + n);
    }
    return count == 0 ? -1 : chain.getFirst();
  }

  // ---- accounting ------------------------------------------------------------------------------

  @Override
  public long chargedBytes() {
    return charge.charged() + (long) pool.frameCount() * pool.pageBytes()
        + (long) index.pool().frameCount() * index.pool().pageBytes();
  }

  /** Closing is the table's ({@link PagedTemporalTable}), which commits first; this only gives the heap back. */
  @Override
  public void close() {
    charge.releaseAll();
  }
}
