/**
 * Spilling to disk: private {@linkplain dev.memwall.core.spill.SpillDirectory spill directories}
 * that are swept when their operator ends (however it ends), append-only
 * {@linkplain dev.memwall.core.spill.SpillFile spill files} read back in slices or as Arrow IPC
 * streams, and the one exception, {@link dev.memwall.core.spill.SpillException}, that names the
 * operator and why it could not spill. Hash aggregation, sort and the spilling joins share them.
 */
package dev.memwall.core.spill;
