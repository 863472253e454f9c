/**
 * Cache- and page-conscious indexes (seed 002, chapters 2 and 3): prefetching B+-trees with
 * jump-pointer arrays, fractal prefetching B+-trees on a page file, and their baselines.
 *
 * <p>The trees themselves arrive with the "Indexes" issue; until then this module holds no types.
 */
package dev.memwall.index;
