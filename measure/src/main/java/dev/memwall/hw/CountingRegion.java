package dev.memwall.hw;

/**
 * A region of code being counted by an {@link EventCounter}: from {@link EventCounter#start()}
 * to {@link #close()}, after which {@link #reading()} holds the counts.
 *
 * <pre>{@code
 * CountingRegion region = counter.start();
 * try (region) {
 *   query.run();
 * }
 * CounterReading reading = region.reading();
 * }</pre>
 *
 * <p>Confined to the counter's thread, like the counter. Closing is idempotent.
 */
public final class CountingRegion implements AutoCloseable {
  private final EventCounter counter;
  private final GroupReadout.Snapshot[] before;
  private final long startNanos;
  /** The reading of a region that counts nothing (decided at start), else null. */
  private final CounterReading fixed;
  private CounterReading reading;

  CountingRegion(EventCounter counter, CounterReading fixed, GroupReadout.Snapshot[] before, long startNanos) {
    this.counter = counter;
    this.fixed = fixed;
    this.before = before;
    this.startNanos = startNanos;
  }

  /**
   * Stops counting and reads the counters. Idempotent.
   *
   * @throws WrongThreadException on a thread other than the counter's
   */
  @Override
  public void close() {
    counter.checkThread();
    if (reading != null) {
      return;
    }
    reading = fixed != null ? counter.release(this, fixed) : counter.stop(this, before, startNanos);
  }

  /** Whether the region is still being counted. */
  public boolean isOpen() {
    return reading == null;
  }

  /**
   * What was counted.
   *
   * @throws IllegalStateException before {@link #close()}
   */
  public CounterReading reading() {
    if (reading == null) {
      throw new IllegalStateException("the region is still being counted: close it first");
    }
    return reading;
  }
}
