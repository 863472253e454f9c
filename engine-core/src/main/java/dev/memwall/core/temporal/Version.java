package dev.memwall.core.temporal;

import java.util.Arrays;

/**
 * One version of an entity: its time and the values of all its attributes from then until its next
 * version. The array belongs to this record; callers must not change it.
 */
public record Version(long time, long[] values) {
  @Override
  public boolean equals(Object other) {
    return other instanceof Version v && v.time == time && Arrays.equals(v.values, values);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(time) * 31 + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return time + Arrays.toString(values);
  }
}
