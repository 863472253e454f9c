package dev.memwall.core.temporal;

/**
 * The state of every entity at one time: the entities whose first version is not later than that
 * time, in the order they were first appended, each with the values of its version valid then.
 * Values are row by row, {@code attributes} per entity. The arrays belong to this record; callers
 * must not change them.
 */
public record Snapshot(long time, int attributes, long[] surrogates, long[] values) {
  /** Number of entities alive at {@link #time}. */
  public int size() {
    return surrogates.length;
  }

  /** Value of {@code attribute} of the entity at {@code row}. */
  public long value(int row, int attribute) {
    return values[row * attributes + attribute];
  }
}
