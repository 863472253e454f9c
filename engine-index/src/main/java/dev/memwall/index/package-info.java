/**
 * Cache- and page-conscious indexes (seed 002, chapters 2 and 3).
 *
 * <p>Every tree is an {@link dev.memwall.index.OrderedIndex} (point lookups, batched lookups and
 * range scans, {@link dev.memwall.index.IndexScan}, over {@code long} keys); those changed in place
 * are {@link dev.memwall.index.UpdatableIndex}es (insert, delete). The CSB+-tree is bulkloaded and
 * then only read; the pB+-tree and every disk tree are updatable.
 *
 * <p>In memory:
 *
 * <ul>
 *   <li>{@link dev.memwall.index.pbtree.PrefetchingBPlusTree}: the pB+-tree, with node width from
 *       {@link dev.memwall.index.pbtree.NodeWidthModel} (seed 002's cold-search cost model over a
 *       {@link dev.memwall.core.machine.MachineProfile}), whole-node fetch, bulkload, search, insert,
 *       lazy delete, range scans prefetched through external or internal jump-pointer arrays, and
 *       batched lookups; with {@link dev.memwall.index.pbtree.PbTreeConfig#oneLine} it is the
 *       classic one-line-node B+-tree baseline; with
 *       {@link dev.memwall.index.pbtree.PbTreeConfig#optimisticReaders} point lookups run beside
 *       one writer, validated by per-node version stamps ({@link dev.memwall.index.node.NodeStamps}).
 *   <li>{@link dev.memwall.index.csb.CsbPlusTree}: the CSB+-tree baseline (bulkload, search, scan).
 *   <li>{@code node}: what both share, {@link dev.memwall.index.node.NodePool} (fixed-size nodes in
 *       one off-heap region addressed by int ids, charged to a memory budget), the packed keys,
 *       the whole-node fetch and the version stamps; each tree keeps its own node format
 *       ({@link dev.memwall.index.pbtree.NodeFormat} for the pB+-tree).
 * </ul>
 *
 * <p>Keys are {@code int32} or {@code int64} ({@link dev.memwall.index.KeyType}), passed as
 * {@code long}; values are {@code int64} row ids; duplicate keys are allowed. Bulkloads take
 * {@link dev.memwall.index.SortedEntries} (sorted arrays, a generator, or an Arrow key column).
 *
 * <p>On disk:
 *
 * <ul>
 *   <li>{@link dev.memwall.index.page.PageFile} (mapped pages, CRC32C per page, two commit records)
 *       and {@link dev.memwall.index.page.BufferPool} (CLOCK, pin/unpin, version stamps);
 *   <li>{@link dev.memwall.index.disk.DiskBPlusTree}: one page-level B+-tree with shadow-paging
 *       durability and optimistic readers, over three page formats
 *       ({@link dev.memwall.index.page.PageFormat}, sharing
 *       {@link dev.memwall.index.page.AbstractPageFormat}): the disk-first fpB+-tree
 *       ({@link dev.memwall.index.disk.DiskFirstFormat}, widths by
 *       {@link dev.memwall.index.disk.InPageWidths}), slotted pages
 *       ({@link dev.memwall.index.slotted.SlottedPageFormat}) and micro-indexing
 *       ({@link dev.memwall.index.micro.MicroIndexFormat});
 *   <li>{@link dev.memwall.index.fpb.CacheFirstTree}: the cache-first fpB+-tree, a pB+-tree of
 *       {@link dev.memwall.index.fpb.CacheFirstFormat} nodes placed onto leaf, node and overflow
 *       pages, durable through a logical-page map with copy on write, which also lets its readers
 *       run without locks, validating per page against the published map;
 *   <li>{@link dev.memwall.index.disk.DiskIndex}: what both trees offer (an updatable index that
 *       commits), picked by {@link dev.memwall.index.disk.DiskTreeType} in
 *       {@link dev.memwall.index.disktrees.DiskIndexes} (create, bulkload, open, goal-G
 *       configuration), which sits above {@code disk} and {@code fpb} so that {@code disk} names
 *       nothing in {@code fpb}; both extend
 *       {@link dev.memwall.index.disk.AbstractDiskTree} (file, pool, create/open/close, the point
 *       lookups over each tree's {@link dev.memwall.index.disk.OptimisticReader}), scan through
 *       {@link dev.memwall.index.disk.AbstractRangeScan} (batches, retries, resume by key) and keep
 *       their free and replaced pages in {@link dev.memwall.index.page.ShadowPages}.
 * </ul>
 *
 * <p>Not yet here: optimistic concurrency for the CSB+-tree, and range scans of the pB+-tree beside
 * a running writer.
 */
package dev.memwall.index;
