package dev.memwall.hw;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import one.profiler.AsyncProfiler;

/**
 * async-profiler's sampling around a region of code, written as a flame graph: what
 * {@code ./memwall tpch --profile EVENT} keeps per query. The event is planned by
 * {@link ProfilerEvents} (hardware events fall back to CPU-time sampling where the machine has no
 * hardware counters, with a one-line notice), the library comes from {@link AsyncProfilerLibrary}.
 *
 * <p>Time-based events are sampled every millisecond (async-profiler's default is 10 ms, too coarse
 * for a query); others at async-profiler's default interval.
 *
 * <p>async-profiler is one per process: one {@code SamplingProfiler} may run at a time (a second
 * {@link #start} while one runs throws {@link IllegalStateException}). It samples every thread of
 * the process. {@link #close} without {@link #stopTo} stops it and discards the samples.
 */
public final class SamplingProfiler implements AutoCloseable {
  /** Events sampled by time, for which the interval is nanoseconds (the others count events). */
  private static final java.util.Set<String> TIMED = java.util.Set.of("cpu", "wall", "itimer", "ctimer", "cpu-clock");
  /** One sample per millisecond of CPU time: enough samples from a query of a few hundred milliseconds. */
  private static final long INTERVAL_NANOS = 1_000_000;

  private final AsyncProfiler profiler;
  private final ProfilerEvents.Plan plan;
  private boolean running = true;

  private SamplingProfiler(AsyncProfiler profiler, ProfilerEvents.Plan plan) {
    this.profiler = profiler;
    this.plan = plan;
  }

  /**
   * Starts sampling {@code plan.event()}.
   *
   * @throws IllegalStateException if async-profiler cannot start (another profiling session runs,
   *     or the platform or kernel refuses the event)
   * @throws UncheckedIOException if the library cannot be extracted
   */
  public static SamplingProfiler start(ProfilerEvents.Plan plan) {
    AsyncProfiler profiler;
    try {
      profiler = AsyncProfiler.getInstance(AsyncProfilerLibrary.extract().toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract async-profiler's library", e);
    }
    try {
      profiler.execute("start,event=" + plan.event() + (TIMED.contains(plan.event()) ? ",interval=" + INTERVAL_NANOS : ""));
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException("async-profiler cannot sample " + plan.event() + ": " + e.getMessage(), e);
    }
    return new SamplingProfiler(profiler, plan);
  }

  /** The event requested, the event sampled and the notice when they differ. */
  public ProfilerEvents.Plan plan() {
    return plan;
  }

  /**
   * Stops sampling and writes the flame graph (HTML) to {@code file}, creating its directory.
   *
   * @throws IOException if the file cannot be written
   */
  public Path stopTo(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    running = false;
    profiler.execute("stop,file=" + file.toAbsolutePath());
    if (!Files.isRegularFile(file)) {
      throw new IOException("async-profiler wrote no flame graph to " + file);
    }
    return file;
  }

  /** The notice to show the user, if the event sampled is not the one requested. */
  public Optional<String> notice() {
    return plan.notice();
  }

  @Override
  public void close() {
    if (running) {
      running = false;
      try {
        profiler.execute("stop");
      } catch (IOException | IllegalStateException e) {
        // nothing was running any more: nothing to discard
      }
    }
  }
}
