package dev.memwall.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Event names as perf spells them, and their perf_event_open encodings against the kernel's numbers. */
class HwEventTest {

  @Test
  void perfNamesParseBackToTheirEvents() {
    List<String> names = List.of("cycles", "instructions", "cache-references", "cache-misses", "LLC-load-misses",
        "L1-dcache-load-misses", "dTLB-load-misses", "branch-misses");
    assertEquals(names, HwEvent.all().stream().map(HwEvent::perfName).toList());
    for (HwEvent event : HwEvent.values()) {
      assertEquals(event, HwEvent.parse(event.perfName()));
      assertEquals(event, HwEvent.parse("  " + event.perfName().toUpperCase() + "\t"));
    }
  }

  @Test
  void unknownNamesAreRejectedWithTheValidOnes() {
    for (String bad : List.of("", "LLC-misses", "l2-misses", "cycles,instructions", "cpu-cycles ")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HwEvent.parse(bad));
      assertTrue(e.getMessage().contains("'" + bad + "'") && e.getMessage().contains("LLC-load-misses, "
          + "L1-dcache-load-misses, dTLB-load-misses, branch-misses"), e.getMessage());
    }
    assertThrows(NullPointerException.class, () -> HwEvent.parse(null));
  }

  @Test
  void listsParseLikePerfStatDashE() {
    assertEquals(EnumSet.of(HwEvent.CYCLES, HwEvent.LLC_LOAD_MISSES),
        HwEvent.parseList("LLC-load-misses,cycles,cycles"));
    assertEquals(HwEvent.all(), HwEvent.parseList(String.join(",",
        HwEvent.all().stream().map(HwEvent::perfName).toList())));
    for (String bad : List.of("", " ", "cycles,", ",cycles", "cycles,,instructions", "cycles,bogus")) {
      assertThrows(IllegalArgumentException.class, () -> HwEvent.parseList(bad), bad);
    }
  }

  @Property(tries = 200)
  void anyStringParsesToItsEventOrFailsNamingTheValidOnes(@ForAll("names") String name) {
    try {
      HwEvent event = HwEvent.parse(name);
      assertTrue(event.perfName().equalsIgnoreCase(name.strip()), name);
    } catch (IllegalArgumentException e) {
      assertTrue(HwEvent.all().stream().noneMatch(ev -> ev.perfName().equalsIgnoreCase(name.strip())), name);
      assertTrue(e.getMessage().contains("valid names: cycles, instructions"), e.getMessage());
    }
  }

  @Provide
  Arbitrary<String> names() {
    Arbitrary<String> mutated = Arbitraries.of(HwEvent.values()).map(HwEvent::perfName)
        .flatMap(n -> Arbitraries.integers().between(0, n.length()).map(cut -> n.substring(0, cut)));
    return Arbitraries.oneOf(mutated, Arbitraries.strings().ofMaxLength(24),
        Arbitraries.of(HwEvent.values()).map(e -> " " + e.perfName().toLowerCase()));
  }

  @Test
  void encodingsAreTheKernelAbiNumbers() {
    // include/uapi/linux/perf_event.h: PERF_TYPE_HARDWARE 0, PERF_TYPE_HW_CACHE 3;
    // PERF_COUNT_HW_CPU_CYCLES 0, INSTRUCTIONS 1, CACHE_REFERENCES 2, CACHE_MISSES 3, BRANCH_MISSES 5;
    // cache ids L1D 0, LL 2, DTLB 3; OP_READ 0; RESULT_MISS 1; config = id | op << 8 | result << 16
    assertEncoding(HwEvent.CYCLES, 0, 0);
    assertEncoding(HwEvent.INSTRUCTIONS, 0, 1);
    assertEncoding(HwEvent.CACHE_REFERENCES, 0, 2);
    assertEncoding(HwEvent.CACHE_MISSES, 0, 3);
    assertEncoding(HwEvent.BRANCH_MISSES, 0, 5);
    assertEncoding(HwEvent.L1_DCACHE_LOAD_MISSES, 3, 0x10000);
    assertEncoding(HwEvent.LLC_LOAD_MISSES, 3, 0x10002);
    assertEncoding(HwEvent.DTLB_LOAD_MISSES, 3, 0x10003);
  }

  private static void assertEncoding(HwEvent event, int type, long config) {
    assertEquals(type, event.type(), event.perfName());
    assertEquals(config, event.config(), event.perfName());
  }
}
