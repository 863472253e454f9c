/**
 * The cache-first fpB+-tree of seed 002 chapter 3 ({@link CacheFirstTree}, nodes and pages laid
 * out by {@link CacheFirstFormat}). The disk-first fpB+-tree is a page format of
 * {@link dev.memwall.index.disk.DiskBPlusTree} and lives with it
 * ({@link dev.memwall.index.disk.DiskFirstFormat}, widths by
 * {@link dev.memwall.index.disk.InPageWidths}). This package builds on {@code disk}, which names
 * nothing here; {@link dev.memwall.index.disktrees.DiskIndexes} picks between the two trees.
 *
 * <h2>The cache-first fpB+-tree</h2>
 *
 * <p>The cache-first fpB+-tree of seed 002 section 3.3.4 over a
 * {@link dev.memwall.index.page.PageFile}: a prefetching B+-tree of
 * {@link CacheFirstFormat#nodeLines()}-line nodes (keys before pointers, a node's lines loaded back
 * to back before its binary search) placed onto disk pages.
 *
 * <p><b>Placement.</b> Leaf nodes live only in leaf pages; the leaves of a leaf page are a run of
 * consecutive leaves, linked by sibling pointers. Non-leaf nodes are placed aggressively: a node
 * page holds the largest full subtree that fits ({@code levels} in-page levels) and fills the rest
 * with children chosen by a bitmap whose set bits are spread evenly; a child that does not fit
 * becomes the top node (in-page level 0) of a new page, except leaf parents, which go to overflow
 * pages. Child pointers are {@code (page, line)}; each node's header holds its in-page level
 * (0 if its parent is on another page, else the parent's level plus one).
 *
 * <p><b>Updates.</b> A full leaf splits inside its leaf page if the page has a free slot; else the
 * leaf page splits first: the second half of its leaf run moves to a new leaf page and the parents'
 * child pointers to the moved leaves are rewritten. The parents are found by walking the
 * leaf-parent entries from the inserting path (the leaf-parent entries in key order are the leaves
 * in key order, and a page's leaves are a contiguous run of them): this replaces the thesis's
 * per-page back pointer and leaf-parent sibling links, costs the same order of node visits, and
 * needs no upkeep when non-leaf nodes move. A full leaf parent splits into a free slot of its page,
 * else into an overflow page. A full non-leaf node splits into a free slot of its page; if there is
 * none, the page is split (Figure 3.10(c)): a top node's new half becomes the top node of a new
 * page and takes its in-page children along; otherwise the in-page subtree of one of the path's
 * nodes in that page (the one closest to half the page) moves to a new page, freeing room. Deletes
 * are lazy (no merges). A search fetches a page from the buffer pool only when a child pointer
 * leaves the current page.
 *
 * <p><b>Durability.</b> Nodes name <em>logical</em> pages; a map sends each to a physical page of
 * the file. Invariant: no physical page referenced by the last commit (its map, and the pages the
 * map names) is ever written: the first change to a logical page after a commit copies it to a free
 * physical page and remaps it. {@link CacheFirstTree#sync} writes the dirty pages, then the map
 * (followed by the external jump-pointer array of leaf pages) into fresh pages chained from the
 * commit record, then commits; only then do the replaced physical pages become free. A crash at any
 * point reopens at the last commit; pages written after it are reclaimed on open (the free pages
 * are those neither the map nor its chain names). An update works on heap images of the pages it
 * touches and installs them only when it has succeeded (each to a fresh physical page, see
 * Concurrency), so a failing update (full file, corrupt page) changes nothing.
 *
 * <p><b>Concurrency.</b> One writer thread ({@link CacheFirstTree#insert},
 * {@link CacheFirstTree#delete}, {@link CacheFirstTree#sync}, {@link CacheFirstTree#close},
 * {@link CacheFirstTree#checkInvariants}) and any number of reader threads, with no lock: readers
 * validate optimistically per page and never block the writer, and the writer never waits for them.
 * The scheme:
 * <ul>
 *   <li>An update that changes a single page written since the last commit, and nothing else, is
 *       copied into that page's frame in place while the frame's stamp is odd (as a
 *       {@code DiskBPlusTree} leaf insert). Every other update (splits, the first change of a
 *       committed page, new pages, a new root) writes each page it changed to a fresh physical
 *       page, then publishes a new immutable {@code View} (page map, root node, height,
 *       jump-pointer array) with one volatile store, then retires the replaced pages: pages written
 *       since the last commit are dropped from the buffer pool (their frames' stamps move) and
 *       reused at once, committed ones stay intact until the next {@link CacheFirstTree#sync} frees
 *       them. So a page's bytes change only under an odd stamp of its frame, and several pages
 *       change together only by one publication. {@link CacheFirstTree#sync} publishes nothing new.
 *   <li>A reader's position on a page is (logical page, physical page the map named, frame, frame
 *       stamp). It is <em>current</em> while the published map still names that physical page and
 *       the frame's stamp is unchanged; {@code validate} checks the map first, then the stamp.
 *       <b>Invariant:</b> a validated position was current from the moment its map entry was read
 *       to the moment of validation, and its bytes are those of one published state: a remapped
 *       page fails the map check, and a page remapped away and back again must have been freed in
 *       between, which drops its frame and fails the stamp check. Readers holding the old physical
 *       page of a remapped logical page therefore fail validation; its bytes stay a consistent
 *       older version until then, and garbage read from a reused frame never validates.
 *   <li>Readers couple: to follow a pointer to another page (a child or the next leaf) they enter
 *       that page through the latest map (reading its stamp), then re-validate the page they leave,
 *       so some instant saw both pages current, i.e. both of one published state; the root page is
 *       coupled with the root pointer and height it was read for. A page whose bytes are unchanged
 *       keeps its nodes and their key ranges (a node that splits or moves changes its page), so a
 *       descent or leaf walk never combines a new parent with an old child or loses or repeats
 *       entries. On a failed validation a search restarts from the root.
 *   <li>Coupling gives an instant per pair of neighbouring pages, not one for a read over three or
 *       more. So a read that walks across leaf pages (a search over a run of equal keys, a scan
 *       batch passing over leaves with nothing to return) keeps the position of every leaf page it
 *       leaves and, before it returns, re-validates all of them with the page it ends on (map entry
 *       and stamp each), else retries as a whole. Each was current from its entry to that check, so
 *       all were current at the last entry: a {@link CacheFirstTree#search},
 *       {@link CacheFirstTree#searchFirst} or {@link CacheFirstTree#contains} returns the answer of
 *       one published state (it is linearizable). A read that stays on its first leaf page keeps
 *       nothing and costs what it did. A kept page whose frame was evicted fails its check with its
 *       bytes intact; such a read still holds if the writer's install counter (odd during an
 *       install) is unchanged since it first left a page, so a read over more leaf pages than the
 *       pool holds completes once the writer pauses.
 *   <li>A scan is atomic per batch, not as a whole. A batch (the entries of at most one leaf
 *       page) is validated, together with the leaf pages it passed over to reach its first entry,
 *       before it is handed out: its entries are exactly those of one published state from where
 *       the batch resumed up to its last entry. Different batches may come from different states.
 *       The next batch continues from the same position if that page is still current (coupled
 *       with the next page when it crosses), else descends again from the last key returned, with
 *       the caveat of {@code DiskBPlusTree} for runs of equal keys the writer changed meanwhile
 *       (part of such a run may be skipped or repeated).
 * </ul>
 * A reader retries only when a page it is reading is rewritten, replaced or evicted under it, so
 * readers can starve only under a writer that rewrites their pages without pause (accepted: there
 * is no fallback lock). Buffer-pool misses of readers and the writer are serialized by the pool.
 *
 * <p><b>Ownership.</b> The tree owns its page file and buffer pool (frames charged to the
 * {@link dev.memwall.core.memory.EngineMemory}); {@link CacheFirstTree#close} commits and frees
 * them. Writer page images are heap arrays.
 *
 * <p><b>Bad input.</b> As {@link dev.memwall.index.disk.DiskIndex}: keys outside the key type,
 * unsorted bulkload input or a fill factor outside (0, 1] give {@link IllegalArgumentException}
 * before anything changes; a file of another tree type or key type
 * {@link dev.memwall.index.page.PageFileFormatException}, untouched; a full file
 * {@link dev.memwall.index.page.PageFileFullException} before the update changes anything; a page
 * failing its checksum or a map naming pages outside the file
 * {@link dev.memwall.index.page.CorruptPageException} naming file and page.
 *
 * <h2>Where the pieces are</h2>
 *
 * <ul>
 *   <li>{@link CacheFirstTree}: the entry point (create, bulkload, open, the operations, the
 *       entry count and the commit flag).
 *   <li>The format: {@link CacheFirstFormat} (nodes and page headers), {@code NodePointer}
 *       ({@code (page, line)} pointers), {@code PageKinds}, {@code PageMap} (the chunked
 *       logical-to-physical map), {@code JumpArray} and {@code View} (one published state).
 *   <li>The readers: {@code Publication} (what the writer publishes), {@code Reader} (a validated
 *       position, the descent and the point lookup) and {@code CacheFirstScan} (the range scan
 *       behind {@link CacheFirstTree.RangeScan}); the retries they share with
 *       {@link dev.memwall.index.disk.DiskBPlusTree} are in
 *       {@link dev.memwall.index.disk.OptimisticReader} and
 *       {@link dev.memwall.index.disk.AbstractRangeScan}.
 *   <li>The writer: {@code WorkingTree} (shape, page images, {@code Image}, and their install),
 *       {@code Bulkload} with {@code Placement}, {@code Updates} with {@code LeafPageSplit} and
 *       {@code NodeSplits}, {@code MapChain} (what a commit writes and an open reads back) and
 *       {@code InvariantCheck}.
 * </ul>
 */
package dev.memwall.index.fpb;
