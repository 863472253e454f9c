package dev.memwall.index.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.index.IndexScan;
import dev.memwall.index.KeyType;
import dev.memwall.index.ReaderThreads;
import dev.memwall.index.RowIds;
import dev.memwall.index.disktrees.DiskIndexes;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Several optimistic readers against one writer that inserts, deletes and syncs: readers never
 * see a torn entry and always see what exists throughout their read. Stable keys (multiples of 4,
 * inserted before the readers start, never touched) must always be found with their row ids;
 * every other key's row ids must be ones the writer could have written ({@code key * 10 + k});
 * scans must return keys in order, every stable key in the range exactly once.
 */
@ExtendWith(LeakCheck.class)
class DiskTreeConcurrencyTest {
  @TempDir
  Path dir;

  private static final int KEYS = 20_000;

  @ParameterizedTest
  @EnumSource(DiskTreeType.class)
  void readersValidateAndRetryWhileOneWriterWrites(DiskTreeType treeType, EngineMemory memory) throws Exception {
    stress(treeType, 4096, memory);
  }

  /** A pool far smaller than the tree: readers and the writer also race with evictions and loads. */
  @ParameterizedTest
  @EnumSource(DiskTreeType.class)
  void readersRetryThroughEvictionsInASmallPool(DiskTreeType treeType, EngineMemory memory) throws Exception {
    stress(treeType, 48, memory);
  }

  private void stress(DiskTreeType treeType, int frames, EngineMemory memory) throws Exception {
    DiskTreeConfig config = DiskIndexes.chooseConfig(KeyType.INT64, treeType, 4096, 240, 24).withPoolFrames(frames);
    try (DiskIndex tree = DiskIndexes.create(dir.resolve("tree"), config, memory)) {
      for (int k = 0; k < KEYS; k += 4) {
        tree.insert(k, k * 10L);
      }
      tree.sync();
      AtomicLongArray written = new AtomicLongArray(KEYS); // the writer's inserts per key, for the checks
      ReaderThreads readers = ReaderThreads.start(3, t -> {
        RowIds out = new RowIds();
        long[] keys = new long[37];
        long[] rows = new long[37];
        return random -> {
          int key = random.nextInt(KEYS);
          out.clear();
          int got = tree.search(key, out);
          if (key % 4 == 0) {
            assertEquals(1, got, "stable key " + key);
            assertEquals(key * 10L, out.get(0));
          }
          for (int i = 0; i < got; i++) {
            long row = out.get(i);
            assertTrue(row >= key * 10L && row < key * 10L + 10, "row id " + row + " under key " + key);
          }
          if (random.nextInt(16) == 0) {
            int lo = random.nextInt(KEYS);
            int hi = lo + random.nextInt(2000);
            IndexScan scan = tree.scan(lo, hi);
            long previous = Long.MIN_VALUE;
            long nextStable = (lo + 3) / 4 * 4;
            for (int n; (n = scan.next(keys, rows)) > 0; ) {
              for (int i = 0; i < n; i++) {
                assertTrue(keys[i] >= previous && keys[i] >= lo && keys[i] <= hi, "scan order");
                assertTrue(rows[i] >= keys[i] * 10 && rows[i] < keys[i] * 10 + 10, "scan row id");
                if (keys[i] % 4 == 0) {
                  assertEquals(nextStable, keys[i], "stable keys exactly once, in order");
                  nextStable += 4;
                }
                previous = keys[i];
              }
            }
            assertTrue(nextStable > Math.min(hi, KEYS - 1), "scan missed stable key " + nextStable);
          }
        };
      });
      Random random = new Random(99);
      long deadline = System.nanoTime() + 3_000_000_000L;
      int ops = 0;
      while (System.nanoTime() < deadline && !readers.failed()) {
        int key = random.nextInt(KEYS);
        if (key % 4 == 0) {
          continue;
        }
        long count = written.get(key);
        if (count > 0 && random.nextBoolean()) {
          assertTrue(tree.delete(key, key * 10L + count - 1));
          written.decrementAndGet(key);
        } else if (count < 9) {
          tree.insert(key, key * 10L + count);
          written.incrementAndGet(key);
        }
        if (++ops % 2000 == 0) {
          tree.sync();
        }
      }
      long reads = readers.stopAndCheck();
      assertTrue(reads > 100, "readers ran " + reads + " reads");
      tree.checkInvariants();
      System.out.println(treeType + " (" + frames + " frames): " + ops + " writes, " + reads + " reads, " + tree.optimisticRetries()
          + " optimistic retries");
    }
  }
}
