package dev.memwall.core.hw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
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
}
