package dev.memwall.index.fpb;

/**
 * The external jump-pointer array of the cache-first tree: its leaf pages in key order, and each
 * logical page's rank in that order ({@code -1}: not a leaf page). Range scans prefetch the leaf
 * pages ahead through it; the commit stores it after the map.
 *
 * <p>Treated as immutable once published in a {@link View}: the writer builds a new one when leaf
 * pages are added (a leaf page split), so readers may use a published one from any thread. The
 * arrays are not copied; whoever builds one must not change them afterwards.
 */
record JumpArray(int[] pages, int[] rankOf) {}
