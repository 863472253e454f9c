/**
 * The inspector join of seed 002, chapter 5 (multi-filter inspection while partitioning, a
 * cache-stationary join phase), and enhanced cache partitioning, its fallback and baseline.
 *
 * <p>Start at {@link dev.memwall.join.inspector.InspectorJoin}: its public settings, report and
 * fallback reasons, and the phases it runs in order, each a package-private class that holds its
 * own state and leaves what it allocates to the run's {@code RunContext}.
 */
package dev.memwall.join.inspector;
