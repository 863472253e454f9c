package dev.memwall.index.temporal;

import dev.memwall.core.temporal.HeapCharge;
import java.util.Arrays;

/**
 * What a page-file temporal table knows of its entities, in memory and saved at each commit: per
 * entity in first-append order its surrogate and last append time, and per store part the logical
 * page where its segment starts (-1 while it has none) and the segment's length in longs; per part
 * the fill page new entities' segments go to. Arrays grow through the table's {@link HeapCharge},
 * so a refused growth changes nothing. Thread safety: one thread, the table's.
 */
final class Catalog {
  private final HeapCharge charge;
  final int parts;
  int entities;
  long[] surrogates = new long[0];
  long[] lastTimes = new long[0];
  final int[][] segmentPages;
  final int[][] segmentLengths;
  final int[] fillPages;

  Catalog(HeapCharge charge, int parts) {
    this.charge = charge;
    this.parts = parts;
    this.segmentPages = new int[parts][0];
    this.segmentLengths = new int[parts][0];
    this.fillPages = new int[parts];
    Arrays.fill(fillPages, -1);
    charge.reserve(16L * parts + 4L * parts); // the per-part references and the fill pages
  }

  /** Room for entity {@code entities}, with no segments yet; may be refused, changing nothing. */
  void prepare() {
    surrogates = charge.grow(surrogates, entities + 1);
    lastTimes = charge.grow(lastTimes, entities + 1);
    for (int p = 0; p < parts; p++) {
      segmentPages[p] = charge.grow(segmentPages[p], entities + 1);
      segmentLengths[p] = charge.grow(segmentLengths[p], entities + 1);
    }
    for (int p = 0; p < parts; p++) {
      segmentPages[p][entities] = -1;
      segmentLengths[p][entities] = 0;
    }
  }

  /** The catalog as longs, followed by the logical page map of {@code pages}. */
  long[] encode(DataPages pages) {
    int n = entities;
    int logical = pages.logicalCount();
    long[] out = new long[3 + parts + logical + 2 * n + 2 * parts * n];
    int at = 0;
    out[at++] = n;
    out[at++] = parts;
    out[at++] = logical;
    for (int p = 0; p < parts; p++) {
      out[at++] = fillPages[p];
    }
    for (int l = 0; l < logical; l++) {
      out[at++] = pages.physical(l);
    }
    for (int e = 0; e < n; e++) {
      out[at++] = surrogates[e];
      out[at++] = lastTimes[e];
    }
    for (int p = 0; p < parts; p++) {
      for (int e = 0; e < n; e++) {
        out[at++] = segmentPages[p][e];
        out[at++] = segmentLengths[p][e];
      }
    }
    return out;
  }

  /**
   * Loads {@code in} as {@link #encode} wrote it, restoring {@code pages}' map.
   *
   * @return null, or why {@code in} is not a catalog of this table (the caller names the file)
   */
  String decode(long[] in, DataPages pages, int firstDataPage, int filePages) {
    if (in.length < 3 || in[1] != parts || in[0] < 0 || in[2] < 0 || in[0] > Integer.MAX_VALUE
        || in[2] > Integer.MAX_VALUE) {
      return "catalog header names " + (in.length < 3 ? "nothing" : in[0] + " entities, " + in[1] + " parts")
          + " for a table of " + parts + " parts";
    }
    int n = (int) in[0];
    int logical = (int) in[2];
    if (in.length != 3L + parts + logical + 2L * n + 2L * parts * n) {
      return "catalog of " + in.length + " longs does not hold " + n + " entities and " + logical + " pages";
    }
    int at = 3;
    for (int p = 0; p < parts; p++) {
      fillPages[p] = (int) in[at++];
      if (fillPages[p] < -1 || fillPages[p] >= logical) {
        return "fill page " + fillPages[p] + " of part " + p + " is not one of " + logical + " pages";
      }
    }
    int[] map = new int[logical];
    for (int l = 0; l < logical; l++) {
      long page = in[at++];
      if (page != -1 && (page < firstDataPage || page >= filePages)) {
        return "logical page " + l + " maps to page " + page + " outside the file's " + filePages;
      }
      map[l] = (int) page;
    }
    pages.restore(map, logical);
    surrogates = charge.grow(surrogates, n);
    lastTimes = charge.grow(lastTimes, n);
    for (int e = 0; e < n; e++) {
      surrogates[e] = in[at++];
      lastTimes[e] = in[at++];
    }
    for (int p = 0; p < parts; p++) {
      segmentPages[p] = charge.grow(segmentPages[p], n);
      segmentLengths[p] = charge.grow(segmentLengths[p], n);
      for (int e = 0; e < n; e++) {
        long page = in[at++];
        long length = in[at++];
        if (page < 0 || page >= logical || map[(int) page] < 0 || length < 1 || length > Integer.MAX_VALUE) {
          return "segment " + p + " of entity " + e + " names logical page " + page + " and " + length + " longs";
        }
        segmentPages[p][e] = (int) page;
        segmentLengths[p][e] = (int) length;
      }
    }
    entities = n;
    return null;
  }
}
