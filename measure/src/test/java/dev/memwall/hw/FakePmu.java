package dev.memwall.hw;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A PMU behind {@link PerfSyscalls} for tests: it obeys the kernel's rules as
 * man perf_event_open states them (groups, a leader's ioctls with PERF_IOC_FLAG_GROUP, RESET zeroing
 * values but not times, the group read format) and can lack events, refuse groups beyond a
 * capacity, fail with a given errno, or multiplex. {@link #tick} plays the role of the counted code.
 */
final class FakePmu implements PerfSyscalls {
  /** What an open of {@code event} answers instead of succeeding: an errno, or 0 to succeed. */
  final Map<HwEvent, Integer> openErrno = new HashMap<>();
  /** Most events per group; a sibling beyond it gets EINVAL, as x86's group validation answers. */
  int groupCapacity = Integer.MAX_VALUE;
  /** Fraction of enabled time a group runs, per leader event (default 1). */
  final Map<HwEvent, Double> runningFraction = new HashMap<>();
  /** errno for read() and ioctl() when non-zero. */
  int readErrno;
  int ioctlErrno;

  private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG;

  private final class Event {
    final HwEvent event;
    final int leader;
    final long flags;
    final long readFormat;
    final List<Integer> siblings = new ArrayList<>();
    boolean enabled;
    long value;
    long enabledNanos;
    long runningNanos;

    Event(HwEvent event, int leader, long flags, long readFormat) {
      this.event = event;
      this.leader = leader;
      this.flags = flags;
      this.readFormat = readFormat;
    }
  }

  private final Map<Integer, Event> open = new HashMap<>();
  private final Set<Integer> everOpened = new HashSet<>();
  final List<String> calls = new ArrayList<>();
  private int nextFd = 100;

  @Override
  public int open(MemorySegment attr, int groupFd) {
    int type = attr.get(ValueLayout.JAVA_INT, 0);
    int size = attr.get(ValueLayout.JAVA_INT, 4);
    long config = attr.get(U64, 8);
    long readFormat = attr.get(U64, 32);
    long flags = attr.get(U64, 40);
    if (size != 64 || attr.get(U64, 16) != 0) {
      return -22;
    }
    HwEvent event = null;
    for (HwEvent e : HwEvent.values()) {
      if (e.type() == type && e.config() == config) {
        event = e;
      }
    }
    if (event == null) {
      return -2;
    }
    calls.add("open " + event.perfName() + (groupFd < 0 ? " leader" : " in " + groupFd));
    int errno = openErrno.getOrDefault(event, 0);
    if (errno != 0) {
      return -errno;
    }
    int leader;
    if (groupFd < 0) {
      leader = -1;
    } else {
      Event group = open.get(groupFd);
      if (group == null || group.leader != -1) {
        return -9; // EBADF: not a leader
      }
      if (group.siblings.size() + 1 >= groupCapacity) {
        return -22;
      }
      leader = groupFd;
    }
    int fd = nextFd++;
    open.put(fd, new Event(event, leader, flags, readFormat));
    everOpened.add(fd);
    if (leader >= 0) {
      open.get(leader).siblings.add(fd);
    }
    return fd;
  }

  @Override
  public int ioctl(int fd, long request, long arg) {
    Event leader = open.get(fd);
    if (leader == null) {
      return -9;
    }
    if (arg != PerfEventAttr.PERF_IOC_FLAG_GROUP || leader.leader != -1) {
      throw new AssertionError("ioctls go to a leader with PERF_IOC_FLAG_GROUP, got fd " + fd + " arg " + arg);
    }
    calls.add("ioctl " + Long.toHexString(request) + " " + leader.event.perfName());
    if (ioctlErrno != 0) {
      return -ioctlErrno;
    }
    for (Event e : group(fd)) {
      if (request == PerfEventAttr.PERF_EVENT_IOC_ENABLE) {
        e.enabled = true;
      } else if (request == PerfEventAttr.PERF_EVENT_IOC_DISABLE) {
        e.enabled = false;
      } else if (request == PerfEventAttr.PERF_EVENT_IOC_RESET) {
        e.value = 0; // times are not reset
      } else {
        return -25; // ENOTTY
      }
    }
    return 0;
  }

  @Override
  public long read(int fd, MemorySegment buffer) {
    Event leader = open.get(fd);
    if (leader == null) {
      return -9;
    }
    if (readErrno != 0) {
      return -readErrno;
    }
    if (leader.readFormat != PerfEventAttr.READ_FORMAT) {
      throw new AssertionError("read format " + leader.readFormat);
    }
    List<Event> group = group(fd);
    long bytes = 8L * (3 + group.size());
    if (buffer.byteSize() < bytes) {
      return -28; // ENOSPC, as the kernel answers a short buffer
    }
    buffer.setAtIndex(U64, 0, group.size());
    buffer.setAtIndex(U64, 1, leader.enabledNanos);
    buffer.setAtIndex(U64, 2, leader.runningNanos);
    for (int i = 0; i < group.size(); i++) {
      buffer.setAtIndex(U64, 3 + i, group.get(i).value);
    }
    return bytes;
  }

  @Override
  public void close(int fd) {
    calls.add("close " + fd);
    if (open.remove(fd) == null) {
      throw new AssertionError("close of fd " + fd + " that is not open");
    }
  }

  /** The counted code: {@code nanos} pass, and each event in {@code occurrences} happens that often. */
  void tick(long nanos, Map<HwEvent, Long> occurrences) {
    for (Event leader : open.values()) {
      if (leader.leader != -1 || !leader.enabled) {
        continue;
      }
      double fraction = runningFraction.getOrDefault(leader.event, 1.0);
      long running = Math.round(nanos * fraction);
      for (Event e : group(fdOf(leader))) {
        e.enabledNanos += nanos;
        e.runningNanos += running;
        if (e.enabled) {
          e.value += Math.round(occurrences.getOrDefault(e.event, 0L) * fraction);
        }
      }
    }
  }

  /** Descriptors still open. */
  int openCount() {
    return open.size();
  }

  int openedCount() {
    return everOpened.size();
  }

  /** The flags each open event was opened with. */
  Map<HwEvent, Long> flags() {
    Map<HwEvent, Long> flags = new HashMap<>();
    open.values().forEach(e -> flags.put(e.event, e.flags));
    return flags;
  }

  /** The groups as lists of events, leader first. */
  List<List<HwEvent>> groups() {
    List<List<HwEvent>> groups = new ArrayList<>();
    open.entrySet().stream().filter(e -> e.getValue().leader == -1).sorted(Map.Entry.comparingByKey())
        .forEach(e -> groups.add(group(e.getKey()).stream().map(x -> x.event).toList()));
    return groups;
  }

  private int fdOf(Event event) {
    return open.entrySet().stream().filter(e -> e.getValue() == event).findFirst().orElseThrow().getKey();
  }

  private List<Event> group(int leaderFd) {
    List<Event> group = new ArrayList<>();
    Event leader = open.get(leaderFd);
    group.add(leader);
    for (int sibling : leader.siblings) {
      if (open.containsKey(sibling)) {
        group.add(open.get(sibling));
      }
    }
    return group;
  }
}
