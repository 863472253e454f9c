package dev.memwall.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the user asked of the report beyond the conventions: baselines ({@code --baseline}) and x
 * axes ({@code --x-axis}), each either for every class ({@code *HeapArray}) or scoped to one class
 * by its simple or qualified name ({@code ScanBandwidthBenchmark:*HeapArray}); and the class loader
 * in which to look for benchmark classes' {@link ReportLayout} annotations (null: do not look).
 *
 * <p>Bad input: a malformed baseline selector is rejected by the constructor with an
 * {@link IllegalArgumentException} naming it. Immutable.
 */
public record ReportSettings(List<String> baselines, List<String> xAxes, ClassLoader annotations) {
  /** An option value, split into its class scope (empty for every class) and its value. */
  public record Scoped(Optional<String> className, String value, String text) {
    static Scoped parse(String text) {
      int colon = text.indexOf(':');
      if (colon > 0) {
        return new Scoped(Optional.of(text.substring(0, colon).strip()), text.substring(colon + 1).strip(), text);
      }
      return new Scoped(Optional.empty(), text.strip(), text);
    }

    /** Whether this applies to the class {@code qualifiedName}. */
    boolean appliesTo(String qualifiedName) {
      return className.isEmpty() || className.get().equals(qualifiedName)
          || qualifiedName.endsWith("." + className.get());
    }
  }

  /** The conventions alone: no options, annotations read from this jar's class loader. */
  public static ReportSettings conventions() {
    return new ReportSettings(List.of(), List.of(), ReportSettings.class.getClassLoader());
  }

  public ReportSettings {
    baselines = List.copyOf(baselines);
    xAxes = List.copyOf(xAxes);
    for (String baseline : baselines) {
      BaselineSelector.parse(Scoped.parse(baseline).value());
    }
    for (String x : xAxes) {
      if (Scoped.parse(x).value().isEmpty()) {
        throw new IllegalArgumentException("--x-axis '" + x + "' names no parameter");
      }
    }
  }

  List<Scoped> scopedBaselines() {
    List<Scoped> scoped = new ArrayList<>();
    baselines.forEach(b -> scoped.add(Scoped.parse(b)));
    return scoped;
  }

  List<Scoped> scopedXAxes() {
    List<Scoped> scoped = new ArrayList<>();
    xAxes.forEach(x -> scoped.add(Scoped.parse(x)));
    return scoped;
  }

  /** The class's {@link ReportLayout}, when the class can be loaded and carries one. */
  Optional<ReportLayout> layoutOf(String className) {
    if (annotations == null) {
      return Optional.empty();
    }
    try {
      Class<?> type = Class.forName(className, false, annotations);
      return Optional.ofNullable(type.getAnnotation(ReportLayout.class));
    } catch (ClassNotFoundException | LinkageError e) {
      return Optional.empty();
    }
  }
}
