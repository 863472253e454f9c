/**
 * Reports of JMH results: {@code ./memwall bench --report [FILE...] [--out DIR]} reads JMH's JSON
 * result files ({@code -rf json}; by default {@code bench-results/*.json} without the
 * {@code quick-*} smoke runs) and writes {@code bench-report/README.md} with PNG charts drawn by
 * XChart.
 *
 * <h2>The convention (how a benchmark gets good charts without configuration)</h2>
 *
 * <ol>
 *   <li><b>Sections.</b> One section per result file (one JMH run) and benchmark class and mode.
 *       Ratios are computed only within a section, because on shared machines only ratios within
 *       one run mean anything.
 *   <li><b>One unit.</b> Scores of a section are converted to one unit of the same kind (time per
 *       operation or operations per time, ns to s), the coarsest in which the smallest score is
 *       still at least 1 ({@link dev.memwall.bench.report.ScoreUnit}).
 *   <li><b>x axis.</b> Parameters with one value in the section are listed as fixed. Of the
 *       {@code @Param}s that vary and are numeric in every row, the one with the most values is the
 *       x axis (ties: {@code tuples, rows, size, keys, elements, n, bits, threads} in that order). The
 *       axis is logarithmic when the values span a factor of 100 or more; so is the score axis. With
 *       no numeric varying parameter the charts are bar charts.
 *   <li><b>Series.</b> One line (or bar) per benchmark method and combination of the other varying
 *       parameters, labelled {@code method name=value ...} (the method is left out when the class
 *       has one).
 *   <li><b>Baseline.</b> A {@link dev.memwall.bench.report.BaselineSelector}: a method name
 *       ({@code duckdb}), a method pattern with one {@code *} ({@code *HeapArray}: each
 *       {@code sumX} against {@code sumHeapArray}), or {@code param=value}
 *       ({@code algorithm=nestedLoops}: every algorithm against nested loops at the same other
 *       parameters). Taken from {@code --baseline [Class:]SELECTOR}, else from the class's
 *       {@link dev.memwall.bench.report.ReportLayout}, else by convention: a method named
 *       {@code baseline}, or a parameter value {@code baseline}. Each row's speedup is how many times
 *       better it is than its baseline row (baseline time / time for time per operation, score /
 *       baseline score for throughput): above 1 is better.
 *   <li><b>Charts.</b> {@code <file>-<Class>-<mode>-scores.png} (score against x, error bars on
 *       linear axes), {@code -speedup.png} (with a baseline; dashed line at 1), and
 *       {@code -per-element.png} when the x axis is an input size ({@code rows}, {@code tuples},
 *       {@code size}, {@code n}, {@code keys}, {@code elements}, ...) and scores are time per
 *       operation: nanoseconds per element, the form of the seeds' figures.
 *   <li><b>Table.</b> Per section: method, varying parameters, score, ± error (half JMH's 99.9%
 *       confidence interval), unit, ns per element where charted, speedup and the baseline row.
 * </ol>
 *
 * <p>So a join benchmark with {@code @Param tuples} (1K to 16M), {@code @Param algorithm}
 * including {@code nestedLoops}, and {@code @ReportLayout(baseline = "algorithm=nestedLoops")}
 * gets time and ns-per-tuple against tuples on log axes, one line per algorithm, and each
 * algorithm's speedup over nested loops per size.
 */
package dev.memwall.bench.report;
