package dev.memwall.index.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ChildJvm;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.index.IndexModelProperties;
import dev.memwall.index.IndexScan;
import dev.memwall.index.KeyType;
import dev.memwall.index.KilledChild;
import dev.memwall.index.RowIds;
import dev.memwall.index.TreeModel;
import dev.memwall.index.disktrees.DiskIndexes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Kills a child JVM ({@link CrashChild}) in the middle of inserting and reopens its file: the tree
 * must be intact and hold exactly a committed prefix of the operations, the last one the child
 * reported or (when the kill fell between a sync and its report) the one after it.
 */
@ExtendWith(LeakCheck.class)
class DiskTreeCrashTest {
  @TempDir
  Path dir;

  @ParameterizedTest
  @EnumSource(DiskTreeType.class)
  void killedMidInsertReopensAtTheLastCommit(DiskTreeType treeType, EngineMemory memory) throws Exception {
    int batch = 97;
    for (int round = 0; round < 3; round++) {
      Path file = dir.resolve(treeType + "-" + round);
      long seed = 1234L + round;
      Process child = ChildJvm.start(CrashChild.class, file.toString(), treeType.name(), Long.toString(seed),
          Integer.toString(batch));
      int wanted = 5 + round * 7; // commits to wait for before the kill: varies where it lands
      List<String> lines = new ArrayList<>();
      long reported = KilledChild.killAfter(child, (long) wanted * batch, round * 3L, lines);
      assertTrue(reported >= 0, "child never committed: " + lines);
      DiskTreeConfig config = DiskIndexes.chooseConfig(KeyType.INT64, treeType, 4096, 240, 24).withPoolFrames(16);
      try (DiskIndex tree = DiskIndexes.open(file, config, memory)) {
        tree.checkInvariants();
        TreeModel atReport = model(seed, reported);
        TreeModel atNext = model(seed, reported + batch);
        List<Long> keys = new ArrayList<>();
        List<Long> rows = new ArrayList<>();
        IndexScan scan = tree.scan(Long.MIN_VALUE, Long.MAX_VALUE);
        long[] k = new long[64];
        long[] r = new long[64];
        for (int got; (got = scan.next(k, r)) > 0; ) {
          for (int i = 0; i < got; i++) {
            keys.add(k[i]);
            rows.add(r[i]);
          }
        }
        boolean report = same(atReport, keys, rows);
        assertTrue(report || same(atNext, keys, rows), "reopened tree (" + tree.size() + " entries) is neither "
            + "commit " + reported + " (" + atReport.size() + ") nor the next (" + atNext.size() + ")");
        TreeModel expected = report ? atReport : atNext;
        assertEquals(expected.size(), tree.size());
        RowIds out = new RowIds();
        for (Map.Entry<Long, List<Long>> e : expected.map().entrySet()) {
          out.clear();
          tree.search(e.getKey(), out);
          assertEquals(e.getValue(), TreeModel.toList(out), "row ids of " + e.getKey());
        }
        // the reopened tree keeps working and committing
        tree.insert(1, 1);
        expected.insert(1, 1);
        tree.sync();
        IndexModelProperties.checkScan(tree, expected, Long.MIN_VALUE, Long.MAX_VALUE, 3);
      }
    }
  }

  private static boolean same(TreeModel model, List<Long> keys, List<Long> rows) {
    return model.rangeKeys(Long.MIN_VALUE, Long.MAX_VALUE).equals(keys)
        && model.range(Long.MIN_VALUE, Long.MAX_VALUE).equals(rows);
  }

  /** The model after the first {@code ops} operations of the child's sequence. */
  static TreeModel model(long seed, long ops) {
    TreeModel model = new TreeModel();
    Random random = new Random(seed);
    for (int i = 0; i < ops; i++) {
      long[] op = CrashChild.operation(random, i);
      if (op[2] == 1) {
        model.delete(op[0], op[1]);
      } else {
        model.insert(op[0], op[1]);
      }
    }
    return model;
  }
}
