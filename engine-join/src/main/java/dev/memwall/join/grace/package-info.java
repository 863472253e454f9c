/**
 * GRACE and hybrid hash joins that partition to disk when the build side exceeds the join's
 * memory, and the pipeline cost model of seed 004 that sizes their partitions and splits their work.
 */
package dev.memwall.join.grace;
