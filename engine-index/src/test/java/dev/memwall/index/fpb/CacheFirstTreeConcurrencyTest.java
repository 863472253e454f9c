package dev.memwall.index.fpb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.index.IndexScan;
import dev.memwall.index.KeyType;
import dev.memwall.index.ReaderThreads;
import dev.memwall.index.RowIds;
import dev.memwall.index.disk.DiskIndex;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.disk.DiskTreeType;
import dev.memwall.index.disktrees.DiskIndexes;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Lock-free readers of the cache-first tree while its writer grows it: small 3-line nodes on 4 KiB
 * pages, so tens of thousands of inserts split leaves, leaf pages, leaf parents, non-leaf nodes and
 * node pages (top-node page splits and in-page subtree relocations) and grow the root, with syncs
 * (pages remapped and freed) and deletes in between. Stable keys (multiples of 64, inserted before
 * the readers start and never touched) must be found exactly once with their row id by every
 * search, and every scan must return them exactly once, in order; other keys may come and go but
 * only with row ids the writer wrote.
 */
@ExtendWith(LeakCheck.class)
class CacheFirstTreeConcurrencyTest {
  @TempDir
  Path dir;

  private static final int KEYS = 48_000;
  private static final int STRIDE = 64; // stable keys: multiples of STRIDE

  @ParameterizedTest
  @ValueSource(ints = {16, 4096})
  void readersSeeStableKeysThroughLeafAndNodePageSplits(int frames, EngineMemory memory) throws Exception {
    DiskTreeConfig config = DiskIndexes.chooseConfig(KeyType.INT64, DiskTreeType.FPB_CACHE_FIRST, 4096, 240, 24)
        .withNodeLines(3).withPoolFrames(frames);
    try (CacheFirstTree tree = (CacheFirstTree) DiskIndexes.create(dir.resolve("tree"), config, memory)) {
      for (int k = 0; k < KEYS; k += STRIDE) {
        tree.insert(k, k * 10L);
      }
      tree.sync();
      int heightBefore = tree.height();
      int nodePagesBefore = tree.pagesByKind()[1];
      ReaderThreads readers = ReaderThreads.start(3, t -> {
        RowIds out = new RowIds();
        long[] keys = new long[29];
        long[] rows = new long[29];
        return random -> {
          int stable = random.nextInt(KEYS / STRIDE) * STRIDE;
          switch (random.nextInt(4)) {
            case 0 -> assertTrue(tree.contains(stable), "stable key " + stable);
            case 1 -> assertEquals(stable * 10L, tree.searchFirst(stable, -1), "stable key " + stable);
            default -> {
              out.clear();
              assertEquals(1, tree.search(stable, out), "stable key " + stable);
              assertEquals(stable * 10L, out.get(0));
              int other = stable + 1 + random.nextInt(STRIDE - 1);
              out.clear();
              int got = tree.search(other, out);
              assertTrue(got <= 1, "key " + other + " found " + got + " times");
              if (got == 1) {
                assertEquals(other * 10L + 1, out.get(0), "row id of key " + other);
              }
            }
          }
          if (random.nextInt(8) == 0) {
            int lo = random.nextInt(KEYS);
            int hi = lo + random.nextInt(3000);
            IndexScan scan = tree.scan(lo, hi);
            long previous = Long.MIN_VALUE;
            long nextStable = (lo + STRIDE - 1) / STRIDE * STRIDE;
            for (int n; (n = scan.next(keys, rows)) > 0; ) {
              for (int i = 0; i < n; i++) {
                assertTrue(keys[i] > previous && keys[i] >= lo && keys[i] <= hi, "scan order at " + keys[i]);
                if (keys[i] % STRIDE == 0) {
                  assertEquals(nextStable, keys[i], "stable keys exactly once, in order");
                  assertEquals(keys[i] * 10, rows[i], "scan row id of stable key " + keys[i]);
                  nextStable += STRIDE;
                } else {
                  assertEquals(keys[i] * 10 + 1, rows[i], "scan row id of key " + keys[i]);
                }
                previous = keys[i];
              }
            }
            assertTrue(nextStable > Math.min(hi, KEYS - 1), "scan missed stable key " + nextStable);
          }
        };
      });
      int[] order = new int[KEYS - KEYS / STRIDE];
      for (int k = 0, j = 0; k < KEYS; k++) {
        if (k % STRIDE != 0) {
          order[j++] = k;
        }
      }
      Random random = new Random(7);
      for (int i = order.length - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      int deleted = 0;
      for (int i = 0; i < order.length && !readers.failed(); i++) {
        tree.insert(order[i], order[i] * 10L + 1);
        if (i % 5 == 4) { // delete an earlier insert now and then: lazy deletes under readers too
          int victim = order[random.nextInt(i)];
          if (tree.delete(victim, victim * 10L + 1)) {
            deleted++;
          }
        }
        if (i % 100 == 99) { // frequent commits: many first changes of committed pages remap them
          tree.sync();
        }
      }
      long reads = readers.stopAndCheck();
      tree.checkInvariants();
      assertEquals(KEYS - deleted, tree.size());
      int[] kinds = tree.pagesByKind();
      System.out.println("cache-first (" + frames + " frames): " + order.length + " inserts, " + deleted
          + " deletes, " + reads + " reads, " + tree.optimisticRetries() + " optimistic retries; height "
          + heightBefore + " -> " + tree.height() + ", node pages " + nodePagesBefore + " -> " + kinds[1]
          + ", leaf pages " + kinds[0] + ", overflow pages " + kinds[2]);
      assertTrue(reads > 100, "readers ran " + reads + " reads");
      assertTrue(tree.height() > heightBefore, "the root grew under the readers");
      assertTrue(kinds[1] > nodePagesBefore + 2, "node pages split under the readers");
    }
  }
}
