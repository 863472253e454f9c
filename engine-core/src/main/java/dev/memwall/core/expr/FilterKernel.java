package dev.memwall.core.expr;

/**
 * A compiled predicate under SQL's three-valued logic: for each row it is TRUE, FALSE or NULL
 * (unknown, when an input it depends on is null). {@link #filter} keeps the TRUE rows, as WHERE
 * does; {@link #filterFalse} keeps the FALSE rows, which is what NOT keeps; NULL rows survive
 * neither, so {@code NOT p} drops them just as {@code p} does.
 *
 * <p>Thread safety: none; one per worker thread.
 */
public abstract class FilterKernel {
  /** Narrows {@code chunk}'s selection to the rows where the predicate is TRUE. */
  public final void filter(Chunk chunk) {
    select(chunk, true);
  }

  /** Narrows {@code chunk}'s selection to the rows where the predicate is FALSE (not NULL). */
  public final void filterFalse(Chunk chunk) {
    select(chunk, false);
  }

  /** Narrows {@code chunk}'s selection to the rows where the predicate has the value {@code wanted}. */
  protected abstract void select(Chunk chunk, boolean wanted);
}
