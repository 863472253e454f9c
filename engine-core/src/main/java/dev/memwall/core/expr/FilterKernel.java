package dev.memwall.core.expr;

/**
 * A compiled predicate: narrows a {@link Chunk}'s selection to the rows where it is true (rows
 * where it is null or false are dropped). Thread safety: none; one per worker thread.
 */
public abstract class FilterKernel {
  /** Replaces {@code chunk}'s selection by the subset of it satisfying the predicate. */
  public abstract void filter(Chunk chunk);
}
