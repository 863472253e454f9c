/**
 * Reports of memwall's runs as files people read: the calibrator's curves and the TPC-H
 * side-by-side table as Markdown, CSV and PNG charts (XChart).
 *
 * <p>They belong to the command line rather than to module {@code tpch}: a host that runs TPC-H on
 * memwall gets the runner's {@code QueryReport}s and presents them itself, while these writers draw
 * with AWT through XChart and stamp a report by running {@code git} in the working directory
 * ({@link dev.memwall.cli.report.RunStamp}): a dependency and a side effect the command line wants and
 * an embedding host should not be handed.
 */
package dev.memwall.cli.report;
