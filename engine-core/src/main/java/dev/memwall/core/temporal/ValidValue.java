package dev.memwall.core.temporal;

/**
 * One value of an attribute of an entity with the interval {@code [from, to)} during which it held:
 * from the version that set it to the version that changed it, or to {@link #OPEN} while it is the
 * current value. Consecutive versions with the same value make one interval.
 */
public record ValidValue(long value, long from, long to) {
  /**
   * The end of a current value's interval. No version may be appended at this time, so an interval
   * ending here is always the open one.
   */
  public static final long OPEN = Long.MAX_VALUE;

  /** Whether this is the entity's current value. */
  public boolean isOpen() {
    return to == OPEN;
  }
}
