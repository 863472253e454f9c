/**
 * Column statistics a planner estimates with: {@link dev.memwall.core.stats.HyperLogLog} distinct
 * counts, one column's {@link dev.memwall.core.stats.ColumnSketch}, and the {@link
 * dev.memwall.core.stats.StatisticsFile} sidecar a data set's writer leaves beside its parts so that
 * a reader need not scan them again. Sketches of parts merge into the sketch of the whole table.
 */
package dev.memwall.core.stats;
