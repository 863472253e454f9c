package dev.memwall.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The probe answers in one line, once per process, and agrees with {@code perf stat} where that
 * tool is installed (on the development VMs both say no hardware counters).
 */
class HardwareCountersTest {

  @Test
  void answersOnceInOneLine() {
    HardwareCounters.Availability availability = HardwareCounters.availability();
    assertSame(availability, HardwareCounters.availability());
    String line = availability.describe();
    assertEquals(1, line.lines().count(), line);
    assertTrue(line.startsWith("hardware counters: " + (availability.available() ? "available" : "unavailable")), line);
    if (!availability.available()) {
      assertTrue(availability.detail().contains("perf_event_open"), line);
    }
  }

  @Test
  void agreesWithPerfStatWhereItIsInstalled() throws IOException, InterruptedException {
    Process perf;
    try {
      perf = new ProcessBuilder("perf", "stat", "-x,", "-e", "cycles:u", "true").redirectErrorStream(true).start();
    } catch (IOException notInstalled) {
      return; // nothing to compare with
    }
    assertTrue(perf.waitFor(30, TimeUnit.SECONDS), "perf stat hung");
    String output = new String(perf.getInputStream().readAllBytes());
    boolean perfCounts = perf.exitValue() == 0 && !output.contains("not supported") && !output.contains("<not counted>");
    assertEquals(perfCounts, HardwareCounters.availability().available(),
        "perf stat said:\n" + output + "\nthe probe said: " + HardwareCounters.availability().describe());
  }

  @Test
  void countRunsTheRegionOnceAndReportsTheProbesReasonWhereThereAreNoCounters() {
    AtomicInteger runs = new AtomicInteger();
    CounterReading reading = HardwareCounters.count(HwEvent.all(), runs::incrementAndGet);
    assertEquals(1, runs.get(), "the region runs exactly once, counters or not");
    HardwareCounters.Availability availability = HardwareCounters.availability();
    if (availability.available()) {
      assertInstanceOf(CounterReading.Available.class, reading, reading.describe());
    } else {
      assertEquals(new CounterReading.Unavailable(availability.detail()), reading, "the probe's reason, not zeros");
      assertEquals(availability.describe(), reading.describe());
      try (EventCounter counter = EventCounter.open(HwEvent.parseList("cycles,LLC-load-misses"))) {
        assertEquals(false, counter.isAvailable());
        CountingRegion region = counter.start();
        region.close();
        assertInstanceOf(CounterReading.Unavailable.class, region.reading());
      }
    }
  }

  @Test
  void countingRethrowsWhatTheRegionThrowsAndRejectsBadArguments() {
    IllegalStateException thrown = new IllegalStateException("boom");
    IllegalStateException caught = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        () -> HardwareCounters.count(HwEvent.all(), () -> {
          throw thrown;
        }));
    assertSame(thrown, caught);
    org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class,
        () -> HardwareCounters.count(HwEvent.all(), null));
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> HardwareCounters.count(java.util.Set.of(), () -> {}));
  }

  /** A fresh JVM with the project's flags that counts a region prints its one line and nothing else. */
  @Test
  void aFreshJvmPrintsOneLineAndNoNativeWarnings() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--")) { // the module and access flags of memwall.jvm.flags
        command.add(argument);
      }
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), CountOnce.class.getName()));
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child hung");
    String output = new String(child.getInputStream().readAllBytes());
    assertEquals(0, child.exitValue(), output);
    assertEquals(List.of(HardwareCounters.availability().available() ? "available" : "unavailable"),
        output.lines().map(line -> line.startsWith("hardware counters (") ? "available"
            : line.startsWith("hardware counters: unavailable (") ? "unavailable" : line).toList(),
        "exactly the reading's line, no JVM or native warnings:\n" + output);
  }

  /** The child of {@link #aFreshJvmPrintsOneLineAndNoNativeWarnings}. */
  static final class CountOnce {
    public static void main(String[] args) {
      long[] sum = new long[1];
      CounterReading reading = HardwareCounters.count(HwEvent.all(), () -> {
        for (int i = 0; i < 1_000_000; i++) {
          sum[0] += i;
        }
      });
      System.out.println(reading.describe());
      if (sum[0] != 499_999_500_000L) {
        System.out.println("wrong sum " + sum[0]);
      }
    }
  }
}
