package dev.memwall.bench.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.bench.index.FlashWriteCounts.KeyOrder;
import dev.memwall.bench.index.FlashWriteCounts.Result;
import dev.memwall.bench.index.FlashWriteCounts.Workload;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.index.disk.DiskTreeType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The EWOM counting program on small runs: its counts repeat exactly, every measured operation
 * writes, and the flash leaf does what the paper says it does against a slotted leaf.
 */
@ExtendWith(LeakCheck.class)
class FlashWriteCountsTest {
  @TempDir
  Path dir;

  @ParameterizedTest
  @EnumSource(KeyOrder.class)
  void countsRepeatAndTheFlashLeafDeletesInPlace(KeyOrder order, EngineMemory memory) {
    for (Workload w : Workload.values()) {
      Result flash = FlashWriteCounts.run(DiskTreeType.FLASH_LEAF, w, order, 4096, 3000, 1500, memory, dir);
      Result again = FlashWriteCounts.run(DiskTreeType.FLASH_LEAF, w, order, 4096, 3000, 1500, memory, dir);
      assertEquals(flash, again, "a seeded run repeats its counts");
      assertEquals(1500, flash.ops());
      assertEquals(0, flash.onDeletes().pageWriteSteps(), "a delete clears a live bit: " + flash);
      assertEquals(flash.deletes(), flash.onDeletes().inPlaceUpdates(), "each delete writes its leaf once");
      Result slotted = FlashWriteCounts.run(DiskTreeType.SLOTTED, w, order, 4096, 3000, 1500, memory, dir);
      assertTrue(slotted.all().pageWriteSteps() >= slotted.ops() * 9 / 10, "slotted pages rewrite on almost every "
          + "update: " + slotted);
      assertTrue(flash.all().pageWriteSteps() * 10 < slotted.all().pageWriteSteps(), flash + " against " + slotted);
    }
  }

  @Test
  void aPreloadTooSmallForTheDeletesIsRefused(EngineMemory memory) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FlashWriteCounts.run(
        DiskTreeType.SLOTTED, Workload.DELETE_HEAVY, KeyOrder.RANDOM, 4096, 100, 1000, memory, dir));
    assertTrue(e.getMessage().contains("too small"), e.getMessage());
  }
}
