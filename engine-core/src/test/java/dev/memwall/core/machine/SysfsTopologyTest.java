package dev.memwall.core.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysfsTopologyTest {
  @TempDir Path root;

  @Test
  void readsDataCachesInLevelOrderAndSkipsInstructionAndMalformedEntries() throws IOException {
    cache("index3", "2", "Unified", "1024K", "64", "16");
    cache("index0", "1", "Data", "48K", "64", "12");
    cache("index1", "1", "Instruction", "32K", "64", "8");
    cache("index2", "3", "Unified", "32M", "64", null);
    cache("index4", "4", "Unified", "lots", "64", "16");
    assertEquals(List.of(new CacheLevel(1, "Data", 48 << 10, 64, 12), new CacheLevel(2, "Unified", 1 << 20, 64, 16),
        new CacheLevel(3, "Unified", 32 << 20, 64, 0)), SysfsTopology.dataCaches(root));
  }

  @Test
  void noSysfsMeansNoCaches() {
    assertTrue(SysfsTopology.dataCaches(root.resolve("missing")).isEmpty());
  }

  @Test
  void parsesSizes() {
    assertEquals(48L << 10, SysfsTopology.parseSize("48K\n"));
    assertEquals(2L << 20, SysfsTopology.parseSize("2M"));
    assertEquals(1L << 30, SysfsTopology.parseSize("1G"));
    assertEquals(512, SysfsTopology.parseSize("512"));
  }

  private void cache(String name, String level, String type, String size, String line, String ways) throws IOException {
    Path dir = Files.createDirectories(root.resolve(name));
    Files.writeString(dir.resolve("level"), level + "\n");
    Files.writeString(dir.resolve("type"), type + "\n");
    Files.writeString(dir.resolve("size"), size + "\n");
    Files.writeString(dir.resolve("coherency_line_size"), line + "\n");
    if (ways != null) {
      Files.writeString(dir.resolve("ways_of_associativity"), ways + "\n");
    }
  }
}
