package dev.memwall.hw;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;

/**
 * Decodes what {@code read()} on a group leader returns with
 * {@code PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING}:
 *
 * <pre>
 * struct read_format { u64 nr; u64 time_enabled; u64 time_running; struct { u64 value; } values[nr]; };
 * </pre>
 *
 * with the values in the order the events joined the group (leader first), and turns two such
 * snapshots into the region's counts. {@code PERF_EVENT_IOC_RESET} zeroes the values but not the
 * two times, so the times of a region are always a difference of snapshots.
 *
 * <p>Stateless.
 */
final class GroupReadout {
  private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG;

  private GroupReadout() {}

  /** One read of a group. */
  record Snapshot(long enabledNanos, long runningNanos, long[] values) {}

  /**
   * Decodes {@code bytesRead} bytes of {@code buffer}.
   *
   * @throws IllegalStateException when the kernel's answer does not have the expected shape
   */
  static Snapshot parse(MemorySegment buffer, long bytesRead, int events) {
    long expected = PerfEventAttr.groupReadBytes(events);
    if (bytesRead != expected) {
      throw new IllegalStateException("read of a group of " + events + " events gave " + bytesRead + " bytes, not "
          + expected);
    }
    long nr = buffer.getAtIndex(U64, 0);
    if (nr != events) {
      throw new IllegalStateException("the group holds " + nr + " events, not " + events);
    }
    long[] values = new long[events];
    for (int i = 0; i < events; i++) {
      values[i] = buffer.getAtIndex(U64, 3 + i);
    }
    return new Snapshot(buffer.getAtIndex(U64, 1), buffer.getAtIndex(U64, 2), values);
  }

  /**
   * Adds the counts of {@code members} between the two snapshots to {@code counts}, or, where the
   * group never ran on the PMU in between, a reason to {@code notCounted}.
   */
  static void collect(List<HwEvent> members, Snapshot before, Snapshot after, Map<HwEvent, CounterReading.EventCount> counts,
      Map<HwEvent, String> notCounted) {
    long enabled = after.enabledNanos() - before.enabledNanos();
    long running = after.runningNanos() - before.runningNanos();
    for (int i = 0; i < members.size(); i++) {
      HwEvent event = members.get(i);
      long raw = after.values()[i] - before.values()[i];
      if (running <= 0) {
        notCounted.put(event, "never on the PMU during the region: its group was multiplexed out");
      } else if (raw < 0) {
        notCounted.put(event, "the counter went backwards (" + before.values()[i] + " to " + after.values()[i] + ")");
      } else {
        counts.put(event, new CounterReading.EventCount(raw, Math.max(enabled, running), running));
      }
    }
  }
}
