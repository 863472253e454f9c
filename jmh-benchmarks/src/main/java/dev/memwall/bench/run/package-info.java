/**
 * Running JMH for {@code ./memwall bench}: memwall's iteration defaults under the user's options
 * ({@link dev.memwall.bench.run.RunDefaults}), result files in {@code bench-results/}, and
 * async-profiler with a check for hardware counters before any hardware event is asked for
 * ({@link dev.memwall.hw.ProfilerEvents}).
 */
package dev.memwall.bench.run;
