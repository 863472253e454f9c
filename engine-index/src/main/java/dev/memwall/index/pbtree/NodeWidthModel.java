package dev.memwall.index.pbtree;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.index.KeyType;
import java.util.ArrayList;
import java.util.List;

/**
 * The cold-search cost model of seed 002 section 2.2.2 (equations 2.1 to 2.6), evaluated on this
 * library's node format ({@link NodeFormat}) with the constants of a {@link MachineProfile}, and
 * the derived range-scan parameters of section 2.3.4.
 *
 * <p>A search visits one node per level; visiting a node whose followed pointer lies on line
 * {@code lines(i)} costs {@code Ttlb + T1 + (lines(i) - 1) * Tnext}, averaged over the pointer
 * positions of a full node (the root: over its actual children). The optimal width minimizes the
 * sum over the levels of a full tree of the given size. T1 is the profile's
 * {@link MachineProfile#missLatencyNanos()}, Tnext its {@link MachineProfile#pipelinedMissNanos()}
 * and Ttlb its TLB {@link MachineProfile.Tlb#missNanos() miss cost} (a cold search misses the TLB
 * at every level). Nothing here is a machine constant.
 *
 * <p>Thread safety: stateless.
 */
public final class NodeWidthModel {
  /** The widest node the model considers, in lines. */
  public static final int MAX_WIDTH = 32;

  private NodeWidthModel() {}

  /** What the model predicts for one node width. */
  public record Estimate(int widthLines, int levels, double coldSearchNanos) {}

  /**
   * Predictions for widths 1 .. {@code maxWidth} for a full tree of {@code entries} entries.
   *
   * @throws IllegalArgumentException if {@code entries < 1} or {@code maxWidth} is outside 1 ..
   *     {@value #MAX_WIDTH}, or the profile's latencies are not positive
   */
  public static List<Estimate> sweep(MachineProfile profile, KeyType keyType, long entries, int maxWidth) {
    if (entries < 1) {
      throw new IllegalArgumentException("the model needs at least one entry, got " + entries);
    }
    if (maxWidth < 1 || maxWidth > MAX_WIDTH) {
      throw new IllegalArgumentException("max width must be 1 .. " + MAX_WIDTH + ", got " + maxWidth);
    }
    double t1 = profile.missLatencyNanos();
    double tnext = profile.pipelinedMissNanos();
    double ttlb = Double.isFinite(profile.tlb().missNanos()) ? Math.max(0, profile.tlb().missNanos()) : 0;
    if (!(t1 > 0) || !(tnext > 0)) {
      throw new IllegalArgumentException("machine profile needs positive T1 and Tnext, got " + t1 + " and " + tnext);
    }
    List<Estimate> estimates = new ArrayList<>(maxWidth);
    for (int w = 1; w <= maxWidth; w++) {
      estimates.add(estimate(new NodeFormat(keyType, w), entries, t1, tnext, ttlb));
    }
    return estimates;
  }

  static Estimate estimate(NodeFormat format, long entries, double t1, double tnext, double ttlb) {
    int leafEntries = format.leafEntries();
    int fanout = format.fanout();
    double leafLines = 0;
    for (int i = 0; i < leafEntries; i++) {
      leafLines += format.rowIdLine(i);
    }
    leafLines /= leafEntries;
    double innerLines = averageChildLine(format, fanout);
    long nodes = (entries + leafEntries - 1) / leafEntries;
    double cost = ttlb + t1 + (leafLines - 1) * tnext;
    int levels = 1;
    while (nodes > 1) {
      long parents = (nodes + fanout - 1) / fanout;
      double lines = parents == 1 ? averageChildLine(format, (int) nodes) : innerLines;
      cost += ttlb + t1 + (lines - 1) * tnext;
      nodes = parents;
      levels++;
    }
    return new Estimate(format.widthLines(), levels, cost);
  }

  private static double averageChildLine(NodeFormat format, int children) {
    double sum = 0;
    for (int i = 0; i < children; i++) {
      sum += format.childLine(i);
    }
    return sum / children;
  }

  /** The width with the lowest predicted cold-search cost (the narrower one on a tie). */
  public static int optimalWidth(MachineProfile profile, KeyType keyType, long entries) {
    Estimate best = null;
    for (Estimate e : sweep(profile, keyType, entries, MAX_WIDTH)) {
      if (best == null || e.coldSearchNanos() < best.coldSearchNanos()) {
        best = e;
      }
    }
    return best.widthLines();
  }

  /** B = T1 / Tnext: misses the memory system serves in the time of one (section 2.2.2). */
  public static double normalizedBandwidth(MachineProfile profile) {
    return profile.missLatencyNanos() / profile.pipelinedMissNanos();
  }

  /** Prefetch distance in leaves, d = ceil(B / w) (equation 2.8), at least 1. */
  public static int prefetchDistance(MachineProfile profile, int leafWidthLines) {
    return Math.max(1, (int) Math.ceil(normalizedBandwidth(profile) / leafWidthLines));
  }

  /**
   * Jump-pointer chunk size in lines, c = ceil(B / m) (equation 2.9): a chunk line holds
   * {@value ExternalJumpPointers#SLOTS_PER_LINE} leaf pointers, m = half of them (a chunk just split
   * is half full), and a chunk must hold about B pointers to hide the fetch of the next; at least 1.
   */
  public static int chunkLines(MachineProfile profile) {
    int m = ExternalJumpPointers.SLOTS_PER_LINE / 2;
    return Math.max(1, (int) Math.ceil(normalizedBandwidth(profile) / m));
  }
}
