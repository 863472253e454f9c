package dev.memwall.hw;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What counting a region of code gave: {@link Available} counts, or {@link Unavailable} with the
 * reason. A reading never reports zero for an event it did not count: such an event is missing
 * from {@link Available#counts()} and named in {@link Available#notCounted()}.
 *
 * <p>Immutable and thread-safe.
 */
public sealed interface CounterReading permits CounterReading.Available, CounterReading.Unavailable {

  /** One line for a user. */
  String describe();

  /**
   * One event's count over the region.
   *
   * @param raw what the counter counted while it was on the PMU
   * @param enabledNanos how long it was enabled during the region (for a per-thread counter, the
   *     time the thread ran)
   * @param runningNanos how long of that it was actually on the PMU: less than enabled when the
   *     kernel multiplexed more events than the PMU has counters; never 0 (such an event is not
   *     counted)
   */
  record EventCount(long raw, long enabledNanos, long runningNanos) {
    public EventCount {
      if (raw < 0 || runningNanos <= 0 || enabledNanos < runningNanos) {
        throw new IllegalArgumentException("not a count: raw " + raw + ", enabled " + enabledNanos + " ns, running "
            + runningNanos + " ns");
      }
    }

    /**
     * The count extrapolated to the whole enabled time ({@code raw x enabled / running}, rounded),
     * as perf stat does; {@link Long#MAX_VALUE} if that overflows.
     */
    public long scaled() {
      return runningNanos == enabledNanos ? raw : Math.round((double) raw * enabledNanos / runningNanos);
    }

    /** Whether the count is extrapolated, i.e. the event shared the PMU with others. */
    public boolean isScaled() {
      return runningNanos < enabledNanos;
    }
  }

  /**
   * Counts for the events the PMU could count.
   *
   * @param counts per counted event; never empty
   * @param notCounted per event asked for but not counted, why (not supported by this PMU, or
   *     never scheduled on it)
   * @param wallNanos the region's wall-clock time ({@link System#nanoTime()})
   * @param userOnly whether only user space was counted (exclude_kernel, as
   *     {@code perf_event_paranoid >= 2} requires of unprivileged users) or kernel too
   */
  record Available(Map<HwEvent, EventCount> counts, Map<HwEvent, String> notCounted, long wallNanos,
      boolean userOnly) implements CounterReading {
    public Available {
      if (counts.isEmpty()) {
        throw new IllegalArgumentException("an available reading counts at least one event");
      }
      if (wallNanos < 0) {
        throw new IllegalArgumentException("negative wall time " + wallNanos);
      }
      counts = Collections.unmodifiableMap(new EnumMap<>(counts));
      notCounted = notCounted.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(notCounted));
      for (HwEvent event : notCounted.keySet()) {
        if (counts.containsKey(event)) {
          throw new IllegalArgumentException(event.perfName() + " is both counted and not counted");
        }
      }
    }

    /** The (scaled) count of {@code event}, or empty where it was not counted. */
    public OptionalLong count(HwEvent event) {
      EventCount count = counts.get(Objects.requireNonNull(event, "event"));
      return count == null ? OptionalLong.empty() : OptionalLong.of(count.scaled());
    }

    /** {@code hardware counters (user space, 1.2 ms): cycles 3,456,789, ...; not counted: LLC-load-misses (ENOENT ...)}. */
    @Override
    public String describe() {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "hardware counters (%s, %.3f ms):",
          userOnly ? "user space" : "user and kernel", wallNanos / 1e6));
      String separator = " ";
      for (Map.Entry<HwEvent, EventCount> e : counts.entrySet()) {
        EventCount c = e.getValue();
        line.append(separator).append(e.getKey().perfName()).append(' ')
            .append(String.format(Locale.ROOT, "%,d", c.scaled()));
        if (c.isScaled()) {
          line.append(String.format(Locale.ROOT, " (scaled, on the PMU %.0f%% of the time)",
              100.0 * c.runningNanos() / c.enabledNanos()));
        }
        separator = ", ";
      }
      if (!notCounted.isEmpty()) {
        line.append("; not counted:");
        separator = " ";
        for (Map.Entry<HwEvent, String> e : notCounted.entrySet()) {
          line.append(separator).append(e.getKey().perfName()).append(" (").append(e.getValue()).append(')');
          separator = ", ";
        }
      }
      return line.toString();
    }
  }

  /** Nothing was counted; {@code reason} says why in one line. */
  record Unavailable(String reason) implements CounterReading {
    public Unavailable {
      Objects.requireNonNull(reason, "reason");
      if (reason.isBlank() || reason.lines().count() != 1) {
        throw new IllegalArgumentException("the reason is one non-blank line: '" + reason + "'");
      }
    }

    @Override
    public String describe() {
      return "hardware counters: unavailable (" + reason + ")";
    }
  }
}
