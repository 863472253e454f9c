/**
 * The node storage the in-memory trees ({@code pbtree}, {@code csb}) share: {@link
 * dev.memwall.index.node.NodePool} (fixed-size, cache-line aligned nodes in one off-heap region
 * charged to a budget, addressed by int ids), {@link dev.memwall.index.node.NodeKeys} (int32/int64
 * keys packed in a node), {@link dev.memwall.index.node.NodeFetch} (loading a whole node's lines
 * back to back), {@link dev.memwall.index.node.NodeStamps} (per-node version stamps for optimistic
 * readers) and {@link dev.memwall.index.node.LevelSizes} (level sizes of a bottom-up bulkload).
 * Each tree keeps its own node format; nothing here knows one.
 */
package dev.memwall.index.node;
