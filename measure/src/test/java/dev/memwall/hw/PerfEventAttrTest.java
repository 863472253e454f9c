package dev.memwall.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * The struct and constants against the kernel ABI (include/uapi/linux/perf_event.h and
 * man perf_event_open), read back byte by byte rather than through the layout under test.
 */
class PerfEventAttrTest {

  @Test
  void theLayoutIsPerfAttrSizeVer0WithTheKernelsOffsets() {
    assertEquals(64, PerfEventAttr.PERF_ATTR_SIZE_VER0); // PERF_ATTR_SIZE_VER0
    assertEquals(64, PerfEventAttr.LAYOUT.byteSize());
    String[] fields = {"type", "size", "config", "sample_period", "sample_type", "read_format", "flags",
        "wakeup_events", "bp_type", "config1"};
    long[] offsets = {0, 4, 8, 16, 24, 32, 40, 48, 52, 56};
    for (int i = 0; i < fields.length; i++) {
      assertEquals(offsets[i], PerfEventAttr.LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement(fields[i])),
          fields[i]);
    }
  }

  @Test
  void writeFillsTheFieldsTheKernelReads() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment attr = arena.allocate(PerfEventAttr.LAYOUT);
      attr.fill((byte) 0x5a); // whatever was there before is cleared
      long flags = PerfEventAttr.FLAG_DISABLED | PerfEventAttr.FLAG_EXCLUDE_KERNEL | PerfEventAttr.FLAG_EXCLUDE_HV;
      PerfEventAttr.write(attr, 3, 0x10002, flags);
      ByteBuffer bytes = attr.asByteBuffer().order(ByteOrder.nativeOrder());
      assertEquals(3, bytes.getInt(0), "type");
      assertEquals(64, bytes.getInt(4), "size");
      assertEquals(0x10002, bytes.getLong(8), "config");
      assertEquals(0, bytes.getLong(16), "sample_period: counting, not sampling");
      assertEquals(0, bytes.getLong(24), "sample_type");
      // PERF_FORMAT_TOTAL_TIME_ENABLED 1 | TOTAL_TIME_RUNNING 2 | GROUP 8
      assertEquals(1 | 2 | 8, bytes.getLong(32), "read_format");
      // bit fields: disabled bit 0, inherit 1, pinned 2, exclusive 3, exclude_user 4, exclude_kernel 5, exclude_hv 6
      assertEquals(0b110_0001, bytes.getLong(40), "flags");
      assertEquals(0, bytes.getInt(48));
      assertEquals(0, bytes.getInt(52));
      assertEquals(0, bytes.getLong(56));
    }
  }

  @Test
  void ioctlNumbersAndFlagsAreTheKernels() {
    // _IO('$', nr) = (0x24 << 8) | nr: ENABLE 0, DISABLE 1, RESET 3
    assertEquals(('$' << 8), PerfEventAttr.PERF_EVENT_IOC_ENABLE);
    assertEquals(('$' << 8) | 1, PerfEventAttr.PERF_EVENT_IOC_DISABLE);
    assertEquals(('$' << 8) | 3, PerfEventAttr.PERF_EVENT_IOC_RESET);
    assertEquals(1, PerfEventAttr.PERF_IOC_FLAG_GROUP);
    assertEquals(8, PerfEventAttr.PERF_FLAG_FD_CLOEXEC);
    assertEquals(2, PerfEventAttr.FLAG_INHERIT);
    assertEquals(8 * (3 + 4), PerfEventAttr.groupReadBytes(4), "nr, time_enabled, time_running, 4 values");
  }
}
