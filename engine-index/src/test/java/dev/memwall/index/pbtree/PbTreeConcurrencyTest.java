package dev.memwall.index.pbtree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.index.KeyType;
import dev.memwall.index.ReaderThreads;
import dev.memwall.index.RowIds;
import dev.memwall.index.TestProfiles;
import dev.memwall.index.TreeModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Several optimistic readers against one writer on a pB+-tree with
 * {@link PbTreeConfig#optimisticReaders()}. The tree starts empty, so the writer splits leaves,
 * inner nodes and the root and grows the node region many times while readers run. Stable keys
 * (every fourth key index, plus the key type's minimum and maximum) are inserted, with up to three
 * duplicates, and never deleted: once the writer has published an insert, every reader must find
 * the key with at least that many row ids. Churn keys are inserted and deleted; their row ids must
 * be ones the writer wrote. At the end the tree must equal a {@code TreeMap} model key by key.
 */
@ExtendWith(LeakCheck.class)
class PbTreeConcurrencyTest {
  private static final int KEYS = 30_000;
  private static final int READERS = 3;

  /** The key of index {@code i}: spread over negatives and positives, distinct per index. */
  private static long keyOf(KeyType type, int i) {
    return type == KeyType.INT64 ? (i - KEYS / 2) * 1_000_003L : (i - KEYS / 2) * 7L;
  }

  @ParameterizedTest
  @CsvSource({"INT64, 1", "INT64, 4", "INT32, 2"})
  void readersAlwaysFindPublishedKeysWhileOneWriterInsertsAndDeletes(KeyType type, int widthLines,
      EngineMemory memory) throws Exception {
    PbTreeConfig config = PbTreeConfig.fromProfile(TestProfiles.vm(), type, 1000).withWidth(widthLines)
        .withOptimisticReaders(true);
    TreeModel model = new TreeModel();
    try (PrefetchingBPlusTree tree = PrefetchingBPlusTree.create(memory, config)) {
      long[] extremes = {type.min(), type.max()};
      for (long key : extremes) {
        tree.insert(key, 7);
        model.insert(key, 7);
      }
      AtomicIntegerArray published = new AtomicIntegerArray(KEYS); // row ids the writer inserted, per index
      AtomicLong foundStable = new AtomicLong();
      ReaderThreads readers = ReaderThreads.start(READERS, t -> {
        RowIds out = new RowIds();
        long[] batch = new long[8];
        int[] batchIndex = new int[8];
        int[] batchBefore = new int[8];
        int[] offsets = new int[9];
        return random -> {
          for (long key : extremes) {
            assertTrue(tree.contains(key), "extreme key " + key);
            assertEquals(7, tree.searchFirst(key, -1));
          }
          int i = random.nextInt(KEYS);
          long key = keyOf(type, i);
          int before = published.get(i); // inserted before this read began
          out.clear();
          int got = tree.search(key, out);
          assertEquals(got, out.size());
          for (int r = 0; r < got; r++) {
            long row = out.get(r);
            assertTrue(row >= i * 10L && row < i * 10L + 10, "row id " + row + " under key index " + i);
          }
          if (i % 4 == 0) {
            assertTrue(got >= before, "stable key index " + i + ": " + got + " row ids, " + before + " published");
            if (before > 0) {
              assertTrue(tree.contains(key), "contains stable key index " + i);
              assertEquals(i * 10L, tree.searchFirst(key, -1), "first row id of stable key index " + i);
              foundStable.incrementAndGet();
            }
          }
          for (int b = 0; b < batch.length; b++) {
            batchIndex[b] = random.nextInt(KEYS / 4) * 4;
            batch[b] = keyOf(type, batchIndex[b]);
            batchBefore[b] = published.get(batchIndex[b]);
          }
          tree.lookupBatch(batch, batch.length, offsets, out);
          for (int b = 0; b < batch.length; b++) {
            assertTrue(offsets[b + 1] - offsets[b] >= batchBefore[b], "batched stable key index " + batchIndex[b]);
          }
        };
      });
      Random random = new Random(99);
      long deadline = System.nanoTime() + 1_500_000_000L;
      int ops = 0;
      int[] churn = new int[KEYS]; // row ids the writer holds per churn key index (LIFO)
      while (System.nanoTime() < deadline && !readers.failed()) {
        int i = random.nextInt(KEYS);
        long key = keyOf(type, i);
        if (i % 4 == 0) {
          int c = published.get(i);
          if (c < 3) {
            tree.insert(key, i * 10L + c);
            model.insert(key, i * 10L + c);
            published.incrementAndGet(i);
          }
        } else if (churn[i] > 0 && random.nextInt(3) == 0) {
          churn[i]--;
          assertTrue(tree.delete(key, i * 10L + churn[i]), "delete of a present entry");
          model.delete(key, i * 10L + churn[i]);
        } else if (churn[i] < 9) {
          tree.insert(key, i * 10L + churn[i]);
          model.insert(key, i * 10L + churn[i]);
          churn[i]++;
        }
        ops++;
      }
      long reads = readers.stopAndCheck();
      assertTrue(reads > 100 && foundStable.get() > 0, "readers ran " + reads + " reads");
      assertTrue(tree.height() > 1, "the writer grew the tree");
      tree.checkInvariants();
      assertEquals(model.size(), tree.size());
      RowIds out = new RowIds();
      for (Map.Entry<Long, List<Long>> e : model.map().entrySet()) {
        out.clear();
        tree.search(e.getKey(), out);
        List<Long> rows = new ArrayList<>();
        for (int r = 0; r < out.size(); r++) {
          rows.add(out.get(r));
        }
        assertEquals(e.getValue(), rows, "row ids of key " + e.getKey());
      }
      System.out.println(type + " w=" + widthLines + ": " + ops + " writes, " + reads + " reads, "
          + tree.optimisticRetries() + " optimistic retries");
    }
  }
}
