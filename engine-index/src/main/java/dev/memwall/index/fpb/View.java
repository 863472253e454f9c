package dev.memwall.index.fpb;

/**
 * One published state of the cache-first tree: the logical-to-physical page map, the root node
 * and height, the jump-pointer array and the number of logical pages. Immutable; readers get it
 * from {@link Publication#view}, a volatile field whose store publishes everything written before
 * it (the pages the map names included), so a reader that reads one view sees all of one update
 * or none of it.
 */
record View(PageMap map, long root, int height, JumpArray jump, int pages) {}
