package dev.memwall.index.page;

/**
 * What the EWOM model (Erasable Write-Once Memory, Ross, DaMoN 2008) counted for the page writes
 * of a {@link PageFile}: a snapshot of its running totals, or the difference of two snapshots
 * ({@link #minus}) for one operation.
 *
 * <p>Every page write falls in exactly one class. A <em>page-write step</em> is a write that turns
 * some bit of the page from 0 into 1: on flash that needs the page erased and written elsewhere,
 * the cost the model counts. An <em>in-place update</em> only turns bits from 1 into 0, which flash
 * programs in place for free; it is counted apart, with the bytes it changed. An <em>unchanged</em>
 * write rewrites the page's image as it was.
 *
 * @param pageWriteSteps writes that turned at least one 0 bit into a 1
 * @param inPlaceUpdates writes that turned bits from 1 to 0 only (at least one)
 * @param inPlaceBytes bytes the in-place updates changed
 * @param unchangedWrites writes of an identical image
 */
public record EwomCounts(long pageWriteSteps, long inPlaceUpdates, long inPlaceBytes, long unchangedWrites) {
  /** Nothing counted. */
  public static final EwomCounts ZERO = new EwomCounts(0, 0, 0, 0);

  /** Page writes of any class. */
  public long writes() {
    return pageWriteSteps + inPlaceUpdates + unchangedWrites;
  }

  /** What was counted since {@code earlier}, a snapshot of the same file taken before this one. */
  public EwomCounts minus(EwomCounts earlier) {
    return new EwomCounts(pageWriteSteps - earlier.pageWriteSteps, inPlaceUpdates - earlier.inPlaceUpdates,
        inPlaceBytes - earlier.inPlaceBytes, unchangedWrites - earlier.unchangedWrites);
  }

  /** The sum of both counts (for totals over several files). */
  public EwomCounts plus(EwomCounts other) {
    return new EwomCounts(pageWriteSteps + other.pageWriteSteps, inPlaceUpdates + other.inPlaceUpdates,
        inPlaceBytes + other.inPlaceBytes, unchangedWrites + other.unchangedWrites);
  }
}
