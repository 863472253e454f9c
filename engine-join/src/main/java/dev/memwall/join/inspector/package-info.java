/**
 * The inspector join of seed 002, chapter 5 (multi-filter inspection while partitioning, a
 * cache-stationary join phase), and enhanced cache partitioning, its fallback and baseline.
 */
package dev.memwall.join.inspector;
