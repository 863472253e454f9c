package dev.memwall.index.disk;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.KeyType;
import dev.memwall.index.disktrees.DiskIndexes;
import java.nio.file.Path;
import java.util.Random;

/**
 * The child process of {@link DiskTreeCrashTest}: inserts (and now and then deletes) a seeded
 * random sequence into a disk tree, syncing every {@code batch} operations and printing
 * {@code committed N} after each sync returns, until it is killed.
 *
 * <p>Arguments: file, tree type, seed, batch.
 */
public final class CrashChild {
  private CrashChild() {}

  /** The i-th operation of the sequence for {@code seed}: {key, rowId, isDelete (1/0)}. */
  static long[] operation(Random random, int i) {
    long key = random.nextInt(5000) - 2500;
    boolean delete = i > 50 && random.nextInt(5) == 0;
    long victim = random.nextInt(i + 1); // for deletes: the row id of an earlier insert (may be gone)
    return delete ? new long[] {key, victim, 1} : new long[] {key, i, 0};
  }

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    DiskTreeType treeType = DiskTreeType.valueOf(args[1]);
    long seed = Long.parseLong(args[2]);
    int batch = Integer.parseInt(args[3]);
    DiskTreeConfig config = DiskIndexes.chooseConfig(KeyType.INT64, treeType, 4096, 240, 24).withPoolFrames(16);
    EngineMemory memory = EngineMemory.create("crash child");
    DiskIndex tree = DiskIndexes.create(file, config, memory);
    System.out.println("committed 0");
    System.out.flush();
    Random random = new Random(seed);
    for (int i = 0; ; i++) {
      long[] op = operation(random, i);
      if (op[2] == 1) {
        tree.delete(op[0], op[1]);
      } else {
        tree.insert(op[0], op[1]);
      }
      if ((i + 1) % batch == 0) {
        tree.sync();
        System.out.println("committed " + (i + 1));
        System.out.flush();
      }
    }
  }
}
