/**
 * Joins inside {@link dev.memwall.core.plan.Plan} pipelines: {@link dev.memwall.join.pipeline.HashProbeStage}
 * builds a hash table on a materialized build side and probes it with the chunks of a streaming
 * probe side as they pass, so a chain of joins from a scan to an aggregation materializes nothing
 * but its build sides. {@link dev.memwall.join.relational.Relation} uses it for every join that does
 * not name an algorithm.
 */
package dev.memwall.join.pipeline;
