package dev.memwall.hw;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The kernel's {@code struct perf_event_attr} (include/uapi/linux/perf_event.h) in its first
 * published form, {@code PERF_ATTR_SIZE_VER0} = 64 bytes, which every kernel since 2.6.31 accepts
 * (a newer kernel treats the fields it added as zero), and the constants of the ABI that memwall
 * uses. The test checks every offset against the header's numbers.
 *
 * <p>Thread safety: stateless; {@link #write} fills a segment the caller owns.
 */
final class PerfEventAttr {
  /** {@code PERF_ATTR_SIZE_VER0}: the size field's value for this layout. */
  static final int PERF_ATTR_SIZE_VER0 = 64;

  static final StructLayout LAYOUT = MemoryLayout.structLayout(
      ValueLayout.JAVA_INT.withName("type"),
      ValueLayout.JAVA_INT.withName("size"),
      ValueLayout.JAVA_LONG.withName("config"),
      ValueLayout.JAVA_LONG.withName("sample_period"), // union with sample_freq
      ValueLayout.JAVA_LONG.withName("sample_type"),
      ValueLayout.JAVA_LONG.withName("read_format"),
      ValueLayout.JAVA_LONG.withName("flags"), // the bit fields disabled:1, inherit:1, ...
      ValueLayout.JAVA_INT.withName("wakeup_events"), // union with wakeup_watermark
      ValueLayout.JAVA_INT.withName("bp_type"),
      ValueLayout.JAVA_LONG.withName("config1")); // union with bp_addr

  // perf_type_id
  static final int PERF_TYPE_HARDWARE = 0;
  static final int PERF_TYPE_HW_CACHE = 3;

  // perf_hw_id
  static final long PERF_COUNT_HW_CPU_CYCLES = 0;
  static final long PERF_COUNT_HW_INSTRUCTIONS = 1;
  static final long PERF_COUNT_HW_CACHE_REFERENCES = 2;
  static final long PERF_COUNT_HW_CACHE_MISSES = 3;
  static final long PERF_COUNT_HW_BRANCH_MISSES = 5;

  // perf_hw_cache_id, perf_hw_cache_op_id, perf_hw_cache_op_result_id
  static final long PERF_COUNT_HW_CACHE_L1D = 0;
  static final long PERF_COUNT_HW_CACHE_LL = 2;
  static final long PERF_COUNT_HW_CACHE_DTLB = 3;
  static final long PERF_COUNT_HW_CACHE_OP_READ = 0;
  static final long PERF_COUNT_HW_CACHE_RESULT_MISS = 1;

  // perf_event_read_format
  static final long PERF_FORMAT_TOTAL_TIME_ENABLED = 1L;
  static final long PERF_FORMAT_TOTAL_TIME_RUNNING = 1L << 1;
  static final long PERF_FORMAT_GROUP = 1L << 3;
  static final long READ_FORMAT = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

  // the bit fields after read_format, bit 0 first
  static final long FLAG_DISABLED = 1L;
  static final long FLAG_INHERIT = 1L << 1;
  static final long FLAG_EXCLUDE_KERNEL = 1L << 5;
  static final long FLAG_EXCLUDE_HV = 1L << 6;

  /** {@code PERF_FLAG_FD_CLOEXEC}, the syscall's flags argument: no fd leaks into child processes. */
  static final long PERF_FLAG_FD_CLOEXEC = 1L << 3;

  // ioctls: _IO('$', n) = ('$' << 8) | n, the same on x86-64 and aarch64
  static final long PERF_EVENT_IOC_ENABLE = 0x2400;
  static final long PERF_EVENT_IOC_DISABLE = 0x2401;
  static final long PERF_EVENT_IOC_RESET = 0x2403;
  /** The ioctl argument that applies it to the leader and every sibling of its group. */
  static final long PERF_IOC_FLAG_GROUP = 1;

  private static final VarHandle TYPE = handle("type");
  private static final VarHandle SIZE = handle("size");
  private static final VarHandle CONFIG = handle("config");
  private static final VarHandle READ_FORMAT_FIELD = handle("read_format");
  private static final VarHandle FLAGS = handle("flags");

  private PerfEventAttr() {}

  /** {@code config} of a {@code PERF_TYPE_HW_CACHE} event: {@code id | (op << 8) | (result << 16)}. */
  static long cacheConfig(long cache, long op, long result) {
    return cache | (op << 8) | (result << 16);
  }

  /**
   * Zeroes {@code attr} (at least {@link #LAYOUT}'s size) and fills it for a counting (not
   * sampling) event: {@code sample_period} 0, {@link #READ_FORMAT}, no inherit.
   */
  static void write(MemorySegment attr, int type, long config, long flags) {
    attr.asSlice(0, LAYOUT.byteSize()).fill((byte) 0);
    TYPE.set(attr, 0L, type);
    SIZE.set(attr, 0L, PERF_ATTR_SIZE_VER0);
    CONFIG.set(attr, 0L, config);
    READ_FORMAT_FIELD.set(attr, 0L, READ_FORMAT);
    FLAGS.set(attr, 0L, flags);
  }

  /** Bytes one {@code read} of a group of {@code events} returns: nr, time_enabled, time_running, a value each. */
  static long groupReadBytes(int events) {
    return Long.BYTES * (3L + events);
  }

  private static VarHandle handle(String field) {
    return LAYOUT.varHandle(MemoryLayout.PathElement.groupElement(field));
  }
}
