package dev.memwall.bench.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The results of one benchmark class in one mode from one result file (one JMH run), laid out for
 * a table and charts by the conventions of the package documentation: scores in one unit, the x
 * axis parameter, one series per method and combination of the other varying parameters, and each
 * row's speedup against its baseline row of the same run.
 *
 * <p>Immutable once built. An option or {@link ReportLayout} that does not apply to this group's
 * results (a baseline matching no row, an x axis that does not vary) is listed in {@link #notes()}.
 */
public final class ReportGroup {
  /** Parameter names taken as an input size: with time per operation they also get a time-per-element chart. */
  private static final Set<String> SIZE_NAMES = Set.of("rows", "tuples", "size", "n", "elements", "keys", "count",
      "length", "entries", "records");
  /** When several numeric parameters vary equally often, the x axis prefers these, in this order. */
  private static final List<String> PREFERRED_X = List.of("tuples", "rows", "size", "keys", "elements", "n", "bits",
      "threads");
  /** Values spanning this factor or more get a logarithmic axis. */
  static final double LOG_SCALE_SPAN = 100;

  /**
   * One result of the group.
   *
   * @param result the JMH result
   * @param series the label of the series (chart line or bar) it belongs to
   * @param score the score in the group's unit
   * @param error the score's error in the group's unit (NaN when JMH had none)
   * @param x the value of the x parameter, NaN when the group has none
   * @param baseline the baseline row's result (this row's own result for a baseline row), or null
   * @param speedup how many times better than the baseline (greater is better in either direction),
   *     NaN without a baseline
   */
  public record Row(JmhResult result, String series, double score, double error, double x, JmhResult baseline,
      double speedup) {
    /** Whether this row is a baseline row itself. */
    public boolean isBaseline() {
      return baseline == result;
    }
  }

  /** One chart line (or bar group): rows sorted by x, in the group's order of first appearance. */
  public record Series(String label, List<Row> rows, boolean baseline) {}

  private final String source;
  private final String className;
  private final String mode;
  private final ScoreUnit unit;
  private final Map<String, String> fixedParams;
  private final List<String> varyingParams;
  private final String xParam;
  private final BaselineSelector baseline;
  private final String baselineOrigin;
  private final List<String> notes;
  private final List<Row> rows;
  private final List<Series> series;

  private ReportGroup(String source, String className, String mode, ScoreUnit unit, Map<String, String> fixedParams,
      List<String> varyingParams, String xParam, BaselineSelector baseline, String baselineOrigin, List<String> notes,
      List<Row> rows) {
    this.source = source;
    this.className = className;
    this.mode = mode;
    this.unit = unit;
    this.fixedParams = Collections.unmodifiableMap(fixedParams);
    this.varyingParams = List.copyOf(varyingParams);
    this.xParam = xParam;
    this.baseline = baseline;
    this.baselineOrigin = baselineOrigin;
    this.notes = List.copyOf(notes);
    this.rows = List.copyOf(rows);
    Map<String, List<Row>> bySeries = new LinkedHashMap<>();
    for (Row row : rows) {
      bySeries.computeIfAbsent(row.series(), k -> new ArrayList<>()).add(row);
    }
    List<Series> all = new ArrayList<>();
    bySeries.forEach((label, members) -> {
      List<Row> sorted = new ArrayList<>(members);
      sorted.sort((a, b) -> Double.compare(a.x(), b.x()));
      all.add(new Series(label, List.copyOf(sorted), members.stream().allMatch(Row::isBaseline)));
    });
    this.series = List.copyOf(all);
  }

  /**
   * Splits the results of one file into groups (class, mode, convertible unit) in the file's order,
   * and lays each out.
   *
   * @param source the result file's name, for headings and chart names
   */
  public static List<ReportGroup> of(String source, List<JmhResult> results, ReportSettings settings) {
    Map<String, List<JmhResult>> byKey = new LinkedHashMap<>();
    for (JmhResult r : results) {
      ScoreUnit unit = ScoreUnit.parse(r.scoreUnit());
      String unitKey = unit.kind() == ScoreUnit.Kind.OTHER ? unit.label() : unit.kind().name();
      byKey.computeIfAbsent(r.className() + "\u0000" + r.mode() + "\u0000" + unitKey, k -> new ArrayList<>()).add(r);
    }
    List<ReportGroup> groups = new ArrayList<>();
    for (List<JmhResult> members : byKey.values()) {
      groups.add(layOut(source, members, settings));
    }
    return groups;
  }

  private static ReportGroup layOut(String source, List<JmhResult> results, ReportSettings settings) {
    JmhResult first = results.getFirst();
    String className = first.className();
    List<String> notes = new ArrayList<>();

    // One unit for the whole group.
    ScoreUnit sourceUnit = ScoreUnit.parse(first.scoreUnit());
    double[] inFirstUnit = results.stream()
        .mapToDouble(r -> ScoreUnit.parse(r.scoreUnit()).convert(r.score(), sourceUnit)).toArray();
    ScoreUnit unit = sourceUnit.readableFor(inFirstUnit);

    // Parameters: fixed (one value) and varying (several), in JMH's order.
    Map<String, Set<String>> values = new LinkedHashMap<>();
    for (JmhResult r : results) {
      r.params().forEach((name, value) -> values.computeIfAbsent(name, k -> new LinkedHashSet<>()).add(value));
    }
    Map<String, String> fixed = new LinkedHashMap<>();
    List<String> varying = new ArrayList<>();
    values.forEach((name, distinct) -> {
      boolean everywhere = results.stream().allMatch(r -> r.params().containsKey(name));
      if (distinct.size() == 1 && everywhere) {
        fixed.put(name, distinct.iterator().next());
      } else {
        varying.add(name);
      }
    });

    String x = chooseX(className, results, values, varying, settings, notes);
    Resolved baseline = chooseBaseline(className, results, settings, notes);

    Set<String> methods = new LinkedHashSet<>();
    results.forEach(r -> methods.add(r.method()));
    List<Row> rows = new ArrayList<>();
    for (JmhResult r : results) {
      ScoreUnit own = ScoreUnit.parse(r.scoreUnit());
      double score = own.convert(r.score(), unit);
      double error = Double.isNaN(r.scoreError()) ? Double.NaN : own.convert(r.scoreError(), unit);
      double xValue = x == null ? Double.NaN : Double.parseDouble(r.params().get(x));
      JmhResult base = null;
      double speedup = Double.NaN;
      if (baseline.selector != null) {
        base = baseline.selector.baselineOf(r, results).orElse(null);
        if (base != null) {
          double baseScore = ScoreUnit.parse(base.scoreUnit()).convert(base.score(), unit);
          speedup = unit.higherIsBetter() || unit.kind() == ScoreUnit.Kind.OTHER ? score / baseScore : baseScore / score;
        }
      }
      rows.add(new Row(r, seriesLabel(r, methods.size() > 1, varying, x), score, error, xValue, base, speedup));
    }
    return new ReportGroup(source, className, first.mode(), unit, fixed, varying, x, baseline.selector,
        baseline.origin, notes, rows);
  }

  private static String seriesLabel(JmhResult r, boolean severalMethods, List<String> varying, String x) {
    StringBuilder label = new StringBuilder();
    if (severalMethods) {
      label.append(r.method());
    }
    for (String name : varying) {
      if (name.equals(x) || !r.params().containsKey(name)) {
        continue;
      }
      if (!label.isEmpty()) {
        label.append(' ');
      }
      label.append(name).append('=').append(r.params().get(name));
    }
    return label.isEmpty() ? r.method() : label.toString();
  }

  private static String chooseX(String className, List<JmhResult> results, Map<String, Set<String>> values,
      List<String> varying, ReportSettings settings, List<String> notes) {
    List<String> numeric = new ArrayList<>();
    for (String name : varying) {
      if (results.stream().allMatch(r -> isNumber(r.params().get(name)))) {
        numeric.add(name);
      }
    }
    for (ReportSettings.Scoped option : settings.scopedXAxes()) {
      if (!option.appliesTo(className)) {
        continue;
      }
      if (option.value().equals("-")) {
        return null;
      }
      if (numeric.contains(option.value())) {
        return option.value();
      }
      if (option.className().isPresent()) {
        notes.add("--x-axis " + option.text() + ": `" + option.value() + "` does not vary numerically here"
            + (numeric.isEmpty() ? "" : " (candidates: " + String.join(", ", numeric) + ")"));
      }
    }
    Optional<ReportLayout> layout = settings.layoutOf(className);
    if (layout.isPresent() && !layout.get().xAxis().isEmpty()) {
      String wanted = layout.get().xAxis();
      if (wanted.equals("-")) {
        return null;
      }
      if (numeric.contains(wanted)) {
        return wanted;
      }
      notes.add("@ReportLayout names x axis `" + wanted + "`, which does not vary numerically in these results; chose automatically");
    }
    String best = null;
    for (String name : numeric) {
      if (best == null || values.get(name).size() > values.get(best).size()
          || (values.get(name).size() == values.get(best).size() && preference(name) < preference(best))) {
        best = name;
      }
    }
    return best;
  }

  private static int preference(String name) {
    int i = PREFERRED_X.indexOf(name.toLowerCase(Locale.ROOT));
    return i < 0 ? PREFERRED_X.size() : i;
  }

  private record Resolved(BaselineSelector selector, String origin) {}

  private static Resolved chooseBaseline(String className, List<JmhResult> results, ReportSettings settings,
      List<String> notes) {
    for (ReportSettings.Scoped option : settings.scopedBaselines()) {
      if (!option.appliesTo(className)) {
        continue;
      }
      BaselineSelector selector = BaselineSelector.parse(option.value());
      if (results.stream().anyMatch(selector::matches)) {
        return new Resolved(selector, "--baseline");
      }
      if (option.className().isPresent()) {
        notes.add("--baseline " + option.text() + " matches no result here");
      }
    }
    Optional<ReportLayout> layout = settings.layoutOf(className);
    if (layout.isPresent() && !layout.get().baseline().isEmpty()) {
      BaselineSelector selector = BaselineSelector.parse(layout.get().baseline());
      if (results.stream().anyMatch(selector::matches)) {
        return new Resolved(selector, "@ReportLayout");
      }
      notes.add("@ReportLayout baseline `" + selector.text() + "` matches no result here");
    }
    for (JmhResult r : results) {
      if (r.method().equals("baseline")) {
        return new Resolved(new BaselineSelector.MethodName("baseline"), "convention");
      }
    }
    for (JmhResult r : results) {
      for (var e : r.params().entrySet()) {
        if (e.getValue().equalsIgnoreCase("baseline")) {
          return new Resolved(new BaselineSelector.ParamValue(e.getKey(), e.getValue()), "convention");
        }
      }
    }
    return new Resolved(null, null);
  }

  static boolean isNumber(String value) {
    if (value == null) {
      return false;
    }
    try {
      return Double.isFinite(Double.parseDouble(value));
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String simpleName(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }

  /** The result file this group comes from. */
  public String source() {
    return source;
  }

  /** The benchmark class's qualified name. */
  public String className() {
    return className;
  }

  /** The benchmark class's simple name. */
  public String simpleClassName() {
    return simpleName(className);
  }

  /** JMH's mode ({@code avgt}, {@code thrpt}, {@code sample}, {@code ss}). */
  public String mode() {
    return mode;
  }

  /** The unit every score and error of the group is expressed in. */
  public ScoreUnit unit() {
    return unit;
  }

  /** Parameters with one value across the whole group. */
  public Map<String, String> fixedParams() {
    return fixedParams;
  }

  /** Parameters with several values, in JMH's order. */
  public List<String> varyingParams() {
    return varyingParams;
  }

  /** The x axis parameter, if the group has one. */
  public Optional<String> xParam() {
    return Optional.ofNullable(xParam);
  }

  /** Whether the x axis is logarithmic: all values positive, spanning a factor of 100 or more. */
  public boolean logX() {
    return xParam != null && spansDecades(rows.stream().mapToDouble(Row::x).toArray());
  }

  /** Whether the score axis is logarithmic: all scores positive, spanning a factor of 100 or more. */
  public boolean logScores() {
    return spansDecades(rows.stream().mapToDouble(Row::score).toArray());
  }

  /** Whether the x parameter is an input size and scores are time per operation: time per element is charted. */
  public boolean perElement() {
    return xParam != null && unit.kind() == ScoreUnit.Kind.TIME_PER_OP
        && SIZE_NAMES.contains(xParam.toLowerCase(Locale.ROOT))
        && rows.stream().allMatch(r -> r.x() > 0);
  }

  /** Nanoseconds per element of the x parameter for {@code row}; meaningful when {@link #perElement()}. */
  public double nanosPerElement(Row row) {
    return row.score() * unit.seconds() * 1e9 / row.x();
  }

  static boolean spansDecades(double[] values) {
    double min = Double.POSITIVE_INFINITY;
    double max = 0;
    for (double v : values) {
      if (!(v > 0) || !Double.isFinite(v)) {
        return false;
      }
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    return values.length > 1 && max / min >= LOG_SCALE_SPAN;
  }

  /** The baseline selector in force, if any. */
  public Optional<BaselineSelector> baseline() {
    return Optional.ofNullable(baseline);
  }

  /** Where the baseline came from: {@code --baseline}, {@code @ReportLayout} or {@code convention}; null without one. */
  public String baselineOrigin() {
    return baselineOrigin;
  }

  /** Whether at least one non-baseline row has a speedup. */
  public boolean hasSpeedups() {
    return rows.stream().anyMatch(r -> !r.isBaseline() && !Double.isNaN(r.speedup()));
  }

  /** Remarks for the reader (an option or annotation that did not apply). */
  public List<String> notes() {
    return notes;
  }

  /** The rows in the result file's order. */
  public List<Row> rows() {
    return rows;
  }

  /** The series label of {@code result}, which must belong to this group (for naming a row's baseline). */
  public String seriesOf(JmhResult result) {
    for (Row row : rows) {
      if (row.result() == result) {
        return row.series();
      }
    }
    throw new IllegalArgumentException(result.benchmark() + " " + result.params() + " is not in this group");
  }

  /** The series in order of first appearance. */
  public List<Series> series() {
    return series;
  }

  /** How JMH ran the group (taken from its first result). */
  public JmhResult.RunSettings run() {
    return rows.getFirst().result().run();
  }
}
