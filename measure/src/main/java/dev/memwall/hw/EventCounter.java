package dev.memwall.hw;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Exact counts of hardware events around regions of code, through {@code perf_event_open} in
 * counting mode (not sampling: every event of the region is counted).
 *
 * <pre>{@code
 * try (EventCounter counter = EventCounter.open(HwEvent.all())) {
 *   CountingRegion region = counter.start();
 *   try (region) {
 *     join.run();
 *   }
 *   System.out.println(region.reading().describe());
 * }
 * }</pre>
 *
 * <p><b>What is counted.</b> Only the thread that opened the counter (perf's pid 0, cpu -1: that
 * thread on whichever CPU it runs); threads it starts, JIT and GC threads and other workers are not
 * counted, so count single-threaded work (e.g. a plan run with one thread). Only user space where
 * {@code /proc/sys/kernel/perf_event_paranoid} is 2 or more (the default, for unprivileged users),
 * user and kernel where it is lower; never the hypervisor. The reading says which.
 *
 * <p><b>Groups.</b> The events are opened as groups of at most {@value #MAX_GROUP_EVENTS}, each
 * with a leader, all disabled at open; {@link #start()} resets and enables, and closing the region
 * disables and reads each group with {@code PERF_IOC_FLAG_GROUP}, so the events of a group count
 * exactly the same instructions. Where the kernel multiplexes groups (more events than hardware
 * counters), counts are scaled by time enabled / time running and the reading says so.
 *
 * <p><b>Missing counters.</b> Where the probe ({@link HardwareCounters#availability()}) finds no
 * counters, no system call is made and every region reads {@link CounterReading.Unavailable} with
 * the probe's reason. An event the PMU lacks (ENOENT, EOPNOTSUPP or EINVAL when opened alone) is
 * reported as not counted while the others are counted; a permission error or a lack of file
 * descriptors makes the whole counter unavailable.
 *
 * <p><b>Ownership and threads.</b> The counter owns one file descriptor per event and a small
 * confined {@link Arena} for the read buffers (diagnostic memory, not charged to a memory budget);
 * {@link #close()} releases both. It is confined to the thread that opened it: any other thread
 * gets {@link WrongThreadException}. One region at a time.
 */
public final class EventCounter implements AutoCloseable {
  /**
   * Most events per group: a group is scheduled on the PMU all at once or not at all, and x86 PMUs
   * have 4 (Intel with SMT) to 6 (AMD Zen) general-purpose counters.
   */
  public static final int MAX_GROUP_EVENTS = 4;

  private final Thread owner = Thread.currentThread();
  private final Set<HwEvent> events;
  private final PerfSyscalls sys;
  private final Arena arena;
  private final List<Group> groups;
  private final Map<HwEvent, String> unsupported;
  private final String unavailableReason;
  private final boolean userOnly;
  private CountingRegion active;
  private boolean closed;

  /** A leader and its siblings, with the buffer one read of the group fills. */
  private record Group(int leaderFd, int[] fds, List<HwEvent> members, MemorySegment buffer) {}

  private EventCounter(Set<HwEvent> events, PerfSyscalls sys, Arena arena, List<Group> groups,
      Map<HwEvent, String> unsupported, String unavailableReason, boolean userOnly) {
    this.events = Collections.unmodifiableSet(EnumSet.copyOf(events));
    this.sys = sys;
    this.arena = arena;
    this.groups = List.copyOf(groups);
    this.unsupported = unsupported;
    this.unavailableReason = unavailableReason;
    this.userOnly = userOnly;
  }

  /**
   * Opens counters for {@code events} on the calling thread, or, where this machine has none, a
   * counter whose regions read {@link CounterReading.Unavailable}.
   *
   * @throws IllegalArgumentException when {@code events} is empty
   * @throws NullPointerException when it is or holds null
   */
  public static EventCounter open(Set<HwEvent> events) {
    Set<HwEvent> wanted = validate(events);
    HardwareCounters.Availability availability = HardwareCounters.availability();
    if (!availability.available()) {
      return unavailable(wanted, availability.detail());
    }
    Arena arena = Arena.ofConfined();
    try {
      return open(wanted, new LinuxPerfSyscalls(arena), arena, HardwareCounters.userSpaceOnly());
    } catch (RuntimeException | Error e) {
      arena.close();
      throw e;
    }
  }

  /** A counter that counts nothing and says why. */
  static EventCounter unavailable(Set<HwEvent> events, String reason) {
    return new EventCounter(validate(events), null, null, List.of(), Map.of(), reason, true);
  }

  /**
   * Opens the groups through {@code sys}; the counter takes ownership of {@code arena} (closed with
   * it, or at once if nothing opens).
   */
  static EventCounter open(Set<HwEvent> events, PerfSyscalls sys, Arena arena, boolean userOnly) {
    Set<HwEvent> wanted = validate(events);
    long flags = PerfEventAttr.FLAG_DISABLED | PerfEventAttr.FLAG_EXCLUDE_HV
        | (userOnly ? PerfEventAttr.FLAG_EXCLUDE_KERNEL : 0);
    MemorySegment attr = arena.allocate(PerfEventAttr.LAYOUT);
    List<List<Integer>> fdsPerGroup = new ArrayList<>();
    List<List<HwEvent>> membersPerGroup = new ArrayList<>();
    Map<HwEvent, String> unsupported = new EnumMap<>(HwEvent.class);
    String fatal = null;
    for (HwEvent event : wanted) {
      PerfEventAttr.write(attr, event.type(), event.config(), flags);
      int current = fdsPerGroup.size() - 1;
      int result;
      if (current >= 0 && fdsPerGroup.get(current).size() < MAX_GROUP_EVENTS) {
        result = sys.open(attr, fdsPerGroup.get(current).getFirst());
        if (result >= 0) {
          fdsPerGroup.get(current).add(result);
          membersPerGroup.get(current).add(event);
          continue;
        }
        if (!unsupportedErrno(-result)) {
          fatal = failure(event, -result);
          break;
        }
        // perhaps the group no longer fits on the PMU (x86 validates that at open): try it alone
      }
      result = sys.open(attr, -1);
      if (result >= 0) {
        fdsPerGroup.add(new ArrayList<>(List.of(result)));
        membersPerGroup.add(new ArrayList<>(List.of(event)));
      } else if (unsupportedErrno(-result)) {
        unsupported.put(event, "not supported by this PMU: " + PerfSyscalls.errnoName(-result));
      } else {
        fatal = failure(event, -result);
        break;
      }
    }
    if (fatal != null || fdsPerGroup.isEmpty()) {
      for (List<Integer> fds : fdsPerGroup) {
        fds.forEach(sys::close);
      }
      arena.close();
      String reason = fatal != null ? fatal : "none of " + names(wanted) + " is supported here: " + unsupported;
      return new EventCounter(wanted, null, null, List.of(), Map.of(), reason, userOnly);
    }
    List<Group> groups = new ArrayList<>();
    for (int g = 0; g < fdsPerGroup.size(); g++) {
      int[] fds = fdsPerGroup.get(g).stream().mapToInt(Integer::intValue).toArray();
      groups.add(new Group(fds[0], fds, List.copyOf(membersPerGroup.get(g)),
          arena.allocate(PerfEventAttr.groupReadBytes(fds.length), Long.BYTES)));
    }
    return new EventCounter(wanted, sys, arena, groups, Collections.unmodifiableMap(unsupported), null, userOnly);
  }

  /** The events asked for (counted or not). */
  public Set<HwEvent> events() {
    return events;
  }

  /** Whether at least one event is being counted; if not, every region reads Unavailable. */
  public boolean isAvailable() {
    return unavailableReason == null;
  }

  /**
   * Starts counting: resets and enables every group. Close the returned region (try-with-resources)
   * to stop, then take its {@link CountingRegion#reading()}.
   *
   * @throws IllegalStateException when closed or while another region is open
   * @throws WrongThreadException on a thread other than the opener
   */
  public CountingRegion start() {
    checkThread();
    if (closed) {
      throw new IllegalStateException("the counter is closed");
    }
    if (active != null) {
      throw new IllegalStateException("a region is already being counted; close it first");
    }
    if (unavailableReason != null) {
      active = new CountingRegion(this, new CounterReading.Unavailable(unavailableReason), null, System.nanoTime());
      return active;
    }
    GroupReadout.Snapshot[] before = new GroupReadout.Snapshot[groups.size()];
    for (int g = 0; g < groups.size(); g++) {
      Group group = groups.get(g);
      int reset = sys.ioctl(group.leaderFd(), PerfEventAttr.PERF_EVENT_IOC_RESET, PerfEventAttr.PERF_IOC_FLAG_GROUP);
      if (reset < 0) {
        return failedStart("PERF_EVENT_IOC_RESET failed: " + PerfSyscalls.errnoName(-reset), 0);
      }
      try {
        before[g] = snapshot(group);
      } catch (IllegalStateException e) {
        return failedStart(e.getMessage(), 0);
      }
    }
    for (int g = 0; g < groups.size(); g++) {
      int enable = sys.ioctl(groups.get(g).leaderFd(), PerfEventAttr.PERF_EVENT_IOC_ENABLE,
          PerfEventAttr.PERF_IOC_FLAG_GROUP);
      if (enable < 0) {
        return failedStart("PERF_EVENT_IOC_ENABLE failed: " + PerfSyscalls.errnoName(-enable), g);
      }
    }
    active = new CountingRegion(this, null, before, System.nanoTime());
    return active;
  }

  private CountingRegion failedStart(String reason, int enabledGroups) {
    disable(enabledGroups);
    active = new CountingRegion(this, new CounterReading.Unavailable(reason), null, System.nanoTime());
    return active;
  }

  /** Stops {@code region}'s counting and reads it: called once, by the region's close. */
  CounterReading stop(CountingRegion region, GroupReadout.Snapshot[] before, long startNanos) {
    long wall = System.nanoTime() - startNanos;
    checkThread();
    if (region != active) {
      throw new IllegalStateException("not this counter's active region");
    }
    active = null;
    String disableFailure = disable(groups.size());
    if (disableFailure != null) {
      return new CounterReading.Unavailable(disableFailure);
    }
    Map<HwEvent, CounterReading.EventCount> counts = new EnumMap<>(HwEvent.class);
    Map<HwEvent, String> notCounted = new EnumMap<>(HwEvent.class);
    notCounted.putAll(unsupported);
    for (int g = 0; g < groups.size(); g++) {
      Group group = groups.get(g);
      GroupReadout.Snapshot after;
      try {
        after = snapshot(group);
      } catch (IllegalStateException e) {
        return new CounterReading.Unavailable(e.getMessage());
      }
      GroupReadout.collect(group.members(), before[g], after, counts, notCounted);
    }
    if (counts.isEmpty()) {
      return new CounterReading.Unavailable("no event was counted: " + notCounted);
    }
    return new CounterReading.Available(counts, notCounted, wall, userOnly);
  }

  /** Ends {@code region}, which counted nothing, and returns its fixed reading. */
  CounterReading release(CountingRegion region, CounterReading fixed) {
    if (region != active) {
      throw new IllegalStateException("not this counter's active region");
    }
    active = null;
    return fixed;
  }

  /** Disables the first {@code count} groups; the first failure, or null. */
  private String disable(int count) {
    String failure = null;
    for (int g = 0; g < count; g++) {
      int result = sys.ioctl(groups.get(g).leaderFd(), PerfEventAttr.PERF_EVENT_IOC_DISABLE,
          PerfEventAttr.PERF_IOC_FLAG_GROUP);
      if (result < 0 && failure == null) {
        failure = "PERF_EVENT_IOC_DISABLE failed: " + PerfSyscalls.errnoName(-result);
      }
    }
    return failure;
  }

  private GroupReadout.Snapshot snapshot(Group group) {
    long bytes = sys.read(group.leaderFd(), group.buffer());
    if (bytes < 0) {
      throw new IllegalStateException("read of the counters failed: " + PerfSyscalls.errnoName((int) -bytes));
    }
    return GroupReadout.parse(group.buffer(), bytes, group.fds().length);
  }

  void checkThread() {
    if (Thread.currentThread() != owner) {
      throw new WrongThreadException("an EventCounter is confined to the thread that opened it (" + owner.getName()
          + "), not " + Thread.currentThread().getName());
    }
  }

  /**
   * Closes an open region (its reading stays available), then every file descriptor and the
   * buffers. Idempotent.
   *
   * @throws WrongThreadException on a thread other than the opener
   */
  @Override
  public void close() {
    checkThread();
    if (closed) {
      return;
    }
    if (active != null) {
      active.close();
    }
    closed = true;
    for (Group group : groups) {
      // siblings first, the leader last
      for (int i = group.fds().length - 1; i >= 0; i--) {
        sys.close(group.fds()[i]);
      }
    }
    if (arena != null) {
      arena.close();
    }
  }

  private static Set<HwEvent> validate(Set<HwEvent> events) {
    Objects.requireNonNull(events, "events");
    if (events.isEmpty()) {
      throw new IllegalArgumentException("no events to count; e.g. HwEvent.all() or HwEvent.parseList(\"cycles\")");
    }
    for (HwEvent event : events) {
      Objects.requireNonNull(event, "null event in " + events);
    }
    return EnumSet.copyOf(events);
  }

  /** Errors that mean "this PMU has no such event" rather than "counting is impossible here". */
  private static boolean unsupportedErrno(int errno) {
    return errno == 2 || errno == 95 || errno == 22; // ENOENT, EOPNOTSUPP, EINVAL
  }

  private static String failure(HwEvent event, int errno) {
    String hint = errno == 1 || errno == 13 ? " (see /proc/sys/kernel/perf_event_paranoid)"
        : errno == 24 ? " (too many open files)" : "";
    return "perf_event_open for " + event.perfName() + " failed: " + PerfSyscalls.errnoName(errno) + hint;
  }

  private static String names(Set<HwEvent> events) {
    return events.stream().map(HwEvent::perfName).toList().toString();
  }
}
