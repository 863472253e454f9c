/**
 * Hardware event counters: exact counts of cycles, instructions, cache, TLB and branch misses
 * around a region of code, and seed 003's stall breakdown computed from them; and the tools' calibrated
 * machine profile.
 *
 * <ul>
 *   <li>{@link dev.memwall.hw.HardwareCounters#availability()}: whether this machine can count
 *       at all (one line when it cannot, as on VMs without a PMU).
 *   <li>{@link dev.memwall.hw.EventCounter} / {@link dev.memwall.hw.CountingRegion}:
 *       {@code try (CountingRegion r = counter.start()) { ... } r.reading()};
 *       {@link dev.memwall.hw.HardwareCounters#count(java.util.Set, Runnable)} for one region.
 *   <li>{@link dev.memwall.hw.CounterReading}: {@code Available} counts per
 *       {@link dev.memwall.hw.HwEvent} or {@code Unavailable(reason)}; never zeros for an
 *       event that was not counted.
 *   <li>{@link dev.memwall.hw.StallBreakdown}: time = compute + misses x calibrated penalties
 *       + branch stalls (+ resource stalls - overlap), with the penalties of the
 *       {@link dev.memwall.core.machine.MachineProfile}.
 *   <li>{@link dev.memwall.hw.CalibratedProfile#install}: the calibrated machine profile the command
 *       line and the benchmarks plan with (the library itself never calibrates on its own).
 * </ul>
 *
 * <p><b>Why perf_event_open counting and not async-profiler here.</b> async-profiler (used by the
 * benchmark harness for flame graphs) samples: it records a stack every N events, which says where
 * the misses happen but not exactly how many a region caused. A region's exact count needs
 * perf_event_open in counting mode: a group of counters opened disabled for the calling thread,
 * enabled and disabled around the region with ioctls, read with
 * {@code PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING} and scaled where the kernel
 * multiplexed. The calls are made through FFM downcalls into the C library; no native code ships.
 */
package dev.memwall.hw;
