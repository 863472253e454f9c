/**
 * Temporal tables in memory without version redundancy: the page layouts of Jouini and Jomier,
 * "Avoiding Version Redundancy for High Performance Reads in Temporal DataBases" (DaMoN 2008,
 * seed 001), as in-memory columnar layouts behind one interface, {@link
 * dev.memwall.core.temporal.TemporalLayout}.
 *
 * <p>An entity (a long surrogate) changes over time; each change is a version holding a time and
 * every attribute. In {@linkplain dev.memwall.core.temporal.LayoutKind#NSM NSM} a version repeats
 * the attributes it did not change (version redundancy), so reading one attribute's history loads
 * the others again and again. {@linkplain dev.memwall.core.temporal.LayoutKind#TDSM TDSM} splits the
 * table per attribute and stores a value with its time only when it changes, at the price of a
 * temporal join for queries over several attributes. {@linkplain dev.memwall.core.temporal.LayoutKind#PSP
 * PSP} keeps an entity's whole history in one sub-page whose attribute zones store each value once,
 * its validity implicit in the zone's change times, so one attribute reads one zone and a whole
 * version is a merge inside one sub-page.
 *
 * <p>The three answer the paper's queries (an entity's history, the state of all entities at a time,
 * one attribute's history, appending a version) identically and report the cache lines each query
 * read, the paper's memory traffic. A layout keeps its versions in a {@link
 * dev.memwall.core.temporal.TemporalStore}: heap arrays charged to an {@link
 * dev.memwall.core.memory.EngineMemory} for {@code TemporalLayout.create}, or, through {@code
 * TemporalLayout.over}, another store with the same layout code, such as engine-index's page-file
 * temporal table (the paper's layouts are disk pages). Thread safety: one thread per table.
 */
package dev.memwall.core.temporal;
