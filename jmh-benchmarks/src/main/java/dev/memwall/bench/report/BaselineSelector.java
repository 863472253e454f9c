package dev.memwall.bench.report;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Names the rows of a benchmark class that the others are compared with, and finds each row's own
 * baseline row. Two forms:
 *
 * <ul>
 *   <li>{@code param=value}: rows whose parameter {@code param} has {@code value} are baselines. A
 *       row's baseline is the row of the same method with {@code param=value} and all other
 *       parameters equal (for example {@code algorithm=nestedLoops}: every algorithm against nested
 *       loops at the same {@code tuples} and {@code threads}).
 *   <li>a method name, optionally with one {@code *} wildcard: matching methods are baselines. A
 *       row's baseline has the same parameters and, for a wildcard, the baseline method whose
 *       {@code *} part is the longest prefix or suffix of the row's method: with {@code *HeapArray},
 *       {@code sumSegment} is compared with {@code sumHeapArray} and {@code filteredSumSegment} with
 *       {@code filteredSumHeapArray}.
 * </ul>
 *
 * <p>Bad input: {@link #parse} rejects an empty selector, an empty parameter name or value, and
 * more than one wildcard, with an {@link IllegalArgumentException} naming the selector.
 *
 * <p>Immutable and thread-safe.
 */
public sealed interface BaselineSelector {
  /** The selector as written. */
  String text();

  /** Whether {@code result} is a baseline row. */
  boolean matches(JmhResult result);

  /** The baseline row for {@code result} among {@code candidates} (all of one class and mode), if any. */
  Optional<JmhResult> baselineOf(JmhResult result, List<JmhResult> candidates);

  /** Parses {@code param=value} or a method name with at most one {@code *}. */
  static BaselineSelector parse(String text) {
    String s = text.strip();
    if (s.isEmpty()) {
      throw new IllegalArgumentException("empty baseline selector: name a method (sumHeapArray, *HeapArray) or param=value");
    }
    int equals = s.indexOf('=');
    if (equals >= 0) {
      String name = s.substring(0, equals).strip();
      String value = s.substring(equals + 1).strip();
      if (name.isEmpty() || value.isEmpty()) {
        throw new IllegalArgumentException("baseline selector '" + text + "' needs both a param name and a value: param=value");
      }
      return new ParamValue(name, value);
    }
    if (s.indexOf('*') != s.lastIndexOf('*')) {
      throw new IllegalArgumentException("baseline selector '" + text + "' has more than one '*'");
    }
    return new MethodName(s);
  }

  /** Rows whose parameter {@code name} equals {@code value}. */
  record ParamValue(String name, String value) implements BaselineSelector {
    public ParamValue {
      Objects.requireNonNull(name);
      Objects.requireNonNull(value);
    }

    @Override
    public String text() {
      return name + "=" + value;
    }

    @Override
    public boolean matches(JmhResult result) {
      return value.equals(result.params().get(name));
    }

    @Override
    public Optional<JmhResult> baselineOf(JmhResult result, List<JmhResult> candidates) {
      if (!result.params().containsKey(name)) {
        return Optional.empty();
      }
      if (matches(result)) {
        return Optional.of(result);
      }
      return candidates.stream()
          .filter(c -> matches(c) && c.method().equals(result.method())
              && sameExcept(c.params(), result.params(), name))
          .findFirst();
    }

    private static boolean sameExcept(Map<String, String> a, Map<String, String> b, String ignored) {
      if (!a.keySet().equals(b.keySet())) {
        return false;
      }
      for (var e : a.entrySet()) {
        if (!e.getKey().equals(ignored) && !e.getValue().equals(b.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
  }

  /** Methods named {@code pattern}, where one {@code *} stands for any text. */
  record MethodName(String pattern) implements BaselineSelector {
    public MethodName {
      Objects.requireNonNull(pattern);
    }

    @Override
    public String text() {
      return pattern;
    }

    @Override
    public boolean matches(JmhResult result) {
      return capture(result.method()) != null;
    }

    /** The text the {@code *} stands for in {@code method} ("" without a wildcard), or null when it does not match. */
    String capture(String method) {
      int star = pattern.indexOf('*');
      if (star < 0) {
        return pattern.equals(method) ? "" : null;
      }
      String prefix = pattern.substring(0, star);
      String suffix = pattern.substring(star + 1);
      if (method.length() >= prefix.length() + suffix.length() && method.startsWith(prefix) && method.endsWith(suffix)) {
        return method.substring(prefix.length(), method.length() - suffix.length());
      }
      return null;
    }

    @Override
    public Optional<JmhResult> baselineOf(JmhResult result, List<JmhResult> candidates) {
      if (matches(result)) {
        return Optional.of(result);
      }
      JmhResult best = null;
      int bestLength = -1;
      for (JmhResult c : candidates) {
        String family = capture(c.method());
        if (family == null || !c.params().equals(result.params())) {
          continue;
        }
        boolean related = pattern.indexOf('*') < 0
            || result.method().startsWith(family) || result.method().endsWith(family);
        if (related && family.length() > bestLength) {
          best = c;
          bestLength = family.length();
        }
      }
      return Optional.ofNullable(best);
    }
  }
}
