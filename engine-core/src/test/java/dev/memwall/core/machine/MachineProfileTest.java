package dev.memwall.core.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The profile a library user gets without calibrating: read, never measured, never written. */
class MachineProfileTest {
  @TempDir Path dir;

  @Test
  void withoutThePropertyTheConservativeProfileIsUsedAndNothingIsMeasuredOrWritten() throws IOException {
    long started = System.nanoTime();
    MachineProfile profile = MachineProfile.fromProperty(null);
    assertTrue(System.nanoTime() - started < 500_000_000L, "reading sysfs must not take a calibration's time");
    assertEquals(MachineProfile.conservative(), profile);
    assertEquals(MachineProfile.fromProperty("  "), profile);
    assertTrue(profile.cpu().contains("not calibrated"), profile.cpu());
    assertFalse(profile.caches().isEmpty());
    assertTrue(profile.missLatencyNanos() > profile.pipelinedMissNanos());
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(0, files.count());
    }
  }

  @Test
  void conservativeProfilesTakeCacheSizesFromSysfsOrAssumeModestOnes() throws IOException {
    MachineProfile assumed = ConservativeProfile.of(dir.resolve("no-sysfs"));
    assertEquals(List.of(1, 2, 3), assumed.caches().stream().map(c -> c.cache().level()).toList());
    assertTrue(assumed.fastCacheBytes() <= 8 << 20, "assumed caches stay small: " + assumed.fastCacheBytes());

    Path index = Files.createDirectories(dir.resolve("index0"));
    Files.writeString(index.resolve("level"), "2");
    Files.writeString(index.resolve("type"), "Unified");
    Files.writeString(index.resolve("size"), "2048K");
    Files.writeString(index.resolve("coherency_line_size"), "64");
    MachineProfile described = ConservativeProfile.of(dir);
    assertEquals(1, described.caches().size());
    assertEquals(2L << 20, described.caches().getFirst().cache().sizeBytes());
    assertTrue(Double.isFinite(described.caches().getFirst().hitLatencyNanos()));
  }

  @Test
  void thePropertyNamesAStoredProfileByFileOrDirectory() throws IOException {
    MachineProfile stored = MachineProfile.conservative();
    stored.save(dir);
    assertEquals(stored, MachineProfile.fromProperty(dir.toString()));
    assertEquals(stored, MachineProfile.fromProperty(dir.resolve(MachineProfile.FILE_NAME).toString()));
  }

  @Test
  void aPropertyNamingNoReadableProfileIsAnErrorNamingThePath() throws IOException {
    Path missing = dir.resolve("nowhere");
    var e = assertThrows(IllegalStateException.class, () -> MachineProfile.fromProperty(missing.toString()));
    assertTrue(e.getMessage().contains(missing.toString()) && e.getMessage().contains(MachineProfile.PROPERTY),
        e.getMessage());
    Files.writeString(dir.resolve(MachineProfile.FILE_NAME), "format.version=1\n");
    assertThrows(IllegalStateException.class, () -> MachineProfile.fromProperty(dir.toString()));
  }

  @Test
  void currentFollowsTheProperty() throws IOException {
    String before = System.getProperty(MachineProfile.PROPERTY);
    try {
      System.clearProperty(MachineProfile.PROPERTY);
      assertEquals(MachineProfile.conservative(), MachineProfile.current());
      MachineProfile stored = new MachineProfile("stored cpu", 3, MachineProfile.conservative().caches(), 123, 12, 10.25,
          List.of(), ConservativeProfile.BANDWIDTH, 4096, new MachineProfile.Tlb(64, 5, Double.NaN, List.of()));
      stored.save(dir);
      System.setProperty(MachineProfile.PROPERTY, dir.toString());
      assertEquals(stored, MachineProfile.current());
    } finally {
      if (before == null) {
        System.clearProperty(MachineProfile.PROPERTY);
      } else {
        System.setProperty(MachineProfile.PROPERTY, before);
      }
    }
  }
}
