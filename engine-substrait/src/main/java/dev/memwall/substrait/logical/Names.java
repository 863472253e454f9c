package dev.memwall.substrait.logical;

import java.util.HashSet;
import java.util.Set;

/**
 * The column names of one plan: each name handed out once, so that columns can be found by name
 * anywhere in the plan. Not thread-safe; one per plan conversion.
 */
public final class Names {
  private final Set<String> used = new HashSet<>();

  /** {@code base} itself the first time it is asked for, then {@code base$2}, {@code base$3}... */
  public String fresh(String base) {
    if (used.add(base)) {
      return base;
    }
    for (int n = 2; ; n++) {
      String candidate = base + "$" + n;
      if (used.add(candidate)) {
        return candidate;
      }
    }
  }
}
