/**
 * The entry points over all durable B+-trees: {@link dev.memwall.index.disktrees.DiskIndexes}
 * creates, bulkloads and opens a {@link dev.memwall.index.disk.DiskIndex} of any
 * {@link dev.memwall.index.disk.DiskTreeType} and chooses a {@link dev.memwall.index.disk.DiskTreeConfig}'s
 * in-page widths for a machine. It names both {@link dev.memwall.index.disk} (the page-level
 * {@link dev.memwall.index.disk.DiskBPlusTree}) and {@link dev.memwall.index.fpb} (the cache-first
 * {@link dev.memwall.index.fpb.CacheFirstTree}), which builds on {@code disk}; so it sits above
 * both, and {@code disk} names nothing in {@code fpb}.
 */
package dev.memwall.index.disktrees;
