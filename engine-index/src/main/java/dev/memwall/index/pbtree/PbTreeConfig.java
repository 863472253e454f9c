package dev.memwall.index.pbtree;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.Placement;
import dev.memwall.index.KeyType;
import java.util.Objects;

/**
 * The parameters of a {@link PrefetchingBPlusTree}: key type, node width, whole-node fetch,
 * jump-pointer array and its prefetch distance and chunk size, the range size from which scans
 * prefetch, and the group size of batched lookups.
 *
 * <p>{@link #fromProfile} derives them from a {@link MachineProfile} with the seed's equations
 * ({@link NodeWidthModel}); every field can then be overridden with the {@code with...} methods.
 * {@link #oneLine} is the classic B+-tree baseline: one-line nodes, no fetch, no jump pointers.
 *
 * @param keyType the key type
 * @param widthLines node width w in cache lines (1 .. {@value NodeFormat#MAX_WIDTH_LINES})
 * @param fetchWholeNode load all lines of a node back to back before searching it
 * @param jumpPointers the jump-pointer array kept for range scans
 * @param prefetchDistance d: leaves a prefetching range scan loads ahead, as one group of loads (>= 1)
 * @param chunkLines c: cache lines per external jump-pointer chunk (>= 1)
 * @param minPrefetchEntries the estimated range size from which {@link ScanPrefetch#AUTO} prefetches
 * @param batchGroup keys whose traversals a batched lookup interleaves (>= 1)
 * @param placement where the node pool lives (huge pages by default)
 * @param optimisticReaders keep a version stamp per node so that point lookups may run while one
 *     writer changes the tree (see {@link PrefetchingBPlusTree}); off by default, so single-threaded
 *     use keeps no stamps and pays nothing for them
 */
public record PbTreeConfig(KeyType keyType, int widthLines, boolean fetchWholeNode, JumpPointers jumpPointers,
    int prefetchDistance, int chunkLines, long minPrefetchEntries, int batchGroup, Placement placement,
    boolean optimisticReaders) {

  /** Seed 002's threshold: jump-pointer prefetching does not pay below about 100 entries. */
  public static final long DEFAULT_MIN_PREFETCH_ENTRIES = 100;

  public PbTreeConfig {
    Objects.requireNonNull(keyType, "keyType");
    Objects.requireNonNull(jumpPointers, "jumpPointers");
    Objects.requireNonNull(placement, "placement");
    if (widthLines < 1 || widthLines > NodeFormat.MAX_WIDTH_LINES) {
      throw new IllegalArgumentException("node width must be 1 .. " + NodeFormat.MAX_WIDTH_LINES
          + " cache lines, got " + widthLines);
    }
    if (prefetchDistance < 1 || chunkLines < 1 || batchGroup < 1 || minPrefetchEntries < 0) {
      throw new IllegalArgumentException("prefetch distance, chunk lines and batch group must be >= 1 and the "
          + "prefetch threshold >= 0, got d=" + prefetchDistance + " c=" + chunkLines + " group=" + batchGroup
          + " threshold=" + minPrefetchEntries);
    }
  }

  /** A configuration without optimistic readers. */
  public PbTreeConfig(KeyType keyType, int widthLines, boolean fetchWholeNode, JumpPointers jumpPointers,
      int prefetchDistance, int chunkLines, long minPrefetchEntries, int batchGroup, Placement placement) {
    this(keyType, widthLines, fetchWholeNode, jumpPointers, prefetchDistance, chunkLines, minPrefetchEntries,
        batchGroup, placement, false);
  }

  /**
   * The configuration the cost model picks for a tree expected to hold {@code expectedEntries}:
   * w from {@link NodeWidthModel#optimalWidth}, d = ceil(B / w), c = ceil(B / m), a batch group of
   * about twice the machine's memory-level parallelism, external jump pointers.
   */
  public static PbTreeConfig fromProfile(MachineProfile profile, KeyType keyType, long expectedEntries) {
    int w = NodeWidthModel.optimalWidth(profile, keyType, Math.max(1, expectedEntries));
    int group = (int) Math.max(4, Math.min(64, Math.ceil(2 * NodeWidthModel.normalizedBandwidth(profile))));
    return new PbTreeConfig(keyType, w, true, JumpPointers.EXTERNAL, NodeWidthModel.prefetchDistance(profile, w),
        NodeWidthModel.chunkLines(profile), DEFAULT_MIN_PREFETCH_ENTRIES, group, Placement.HUGE_PAGES);
  }

  /** The classic B+-tree baseline: one-line nodes, no whole-node fetch, no jump pointers. */
  public static PbTreeConfig oneLine(KeyType keyType) {
    return new PbTreeConfig(keyType, 1, false, JumpPointers.NONE, 1, 1, DEFAULT_MIN_PREFETCH_ENTRIES, 1,
        Placement.HUGE_PAGES);
  }

  /** This configuration with another width (d is kept; recompute it if it should follow w). */
  public PbTreeConfig withWidth(int lines) {
    return new PbTreeConfig(keyType, lines, fetchWholeNode, jumpPointers, prefetchDistance, chunkLines,
        minPrefetchEntries, batchGroup, placement, optimisticReaders);
  }

  public PbTreeConfig withFetchWholeNode(boolean fetch) {
    return new PbTreeConfig(keyType, widthLines, fetch, jumpPointers, prefetchDistance, chunkLines,
        minPrefetchEntries, batchGroup, placement, optimisticReaders);
  }

  public PbTreeConfig withJumpPointers(JumpPointers kind) {
    return new PbTreeConfig(keyType, widthLines, fetchWholeNode, kind, prefetchDistance, chunkLines,
        minPrefetchEntries, batchGroup, placement, optimisticReaders);
  }

  public PbTreeConfig withPrefetchDistance(int d) {
    return new PbTreeConfig(keyType, widthLines, fetchWholeNode, jumpPointers, d, chunkLines, minPrefetchEntries,
        batchGroup, placement, optimisticReaders);
  }

  public PbTreeConfig withChunkLines(int c) {
    return new PbTreeConfig(keyType, widthLines, fetchWholeNode, jumpPointers, prefetchDistance, c,
        minPrefetchEntries, batchGroup, placement, optimisticReaders);
  }

  public PbTreeConfig withMinPrefetchEntries(long entries) {
    return new PbTreeConfig(keyType, widthLines, fetchWholeNode, jumpPointers, prefetchDistance, chunkLines,
        entries, batchGroup, placement, optimisticReaders);
  }

  public PbTreeConfig withBatchGroup(int group) {
    return new PbTreeConfig(keyType, widthLines, fetchWholeNode, jumpPointers, prefetchDistance, chunkLines,
        minPrefetchEntries, group, placement, optimisticReaders);
  }

  public PbTreeConfig withPlacement(Placement where) {
    return new PbTreeConfig(keyType, widthLines, fetchWholeNode, jumpPointers, prefetchDistance, chunkLines,
        minPrefetchEntries, batchGroup, where, optimisticReaders);
  }

  /**
   * This configuration with or without per-node version stamps for readers running beside one
   * writer.
   */
  public PbTreeConfig withOptimisticReaders(boolean optimistic) {
    return new PbTreeConfig(keyType, widthLines, fetchWholeNode, jumpPointers, prefetchDistance, chunkLines,
        minPrefetchEntries, batchGroup, placement, optimistic);
  }
}
