/**
 * Temporal tables in a page file: the page layouts of Jouini and Jomier, "Avoiding Version
 * Redundancy for High Performance Reads in Temporal DataBases" (DaMoN 2008, seed 001), as disk
 * pages, {@link dev.memwall.index.temporal.PagedTemporalTable}. The layout code (what NSM, TDSM and
 * PSP store and how each query reads it) is engine-core's {@code dev.memwall.core.temporal}, run
 * over a store whose entity segments live in pages of a {@link dev.memwall.index.page.PageFile}
 * through a {@link dev.memwall.index.page.BufferPool}, with a disk B+-tree from surrogate to entity.
 * What this package adds is the paging: segments packed into shared pages, page splits, overflow
 * chains, copy on write and commits, and the paper's cost measure, pages read per query.
 *
 * <p>It sits above {@code disk}, {@code disktrees} and {@code page}, and nothing in the index
 * module names it.
 */
package dev.memwall.index.temporal;
