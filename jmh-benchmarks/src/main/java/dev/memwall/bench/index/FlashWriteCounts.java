package dev.memwall.bench.index;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.KeyType;
import dev.memwall.index.disk.DiskBPlusTree;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.disk.DiskTreeType;
import dev.memwall.index.disktrees.DiskIndexes;
import dev.memwall.index.page.EwomCounts;
import dev.memwall.index.page.PageFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Page-write steps per operation under Ross's EWOM flash model (seed 001, DaMoN 2008) for each page
 * format of the disk B+-tree and each workload: counts, not times, so the numbers do not depend on
 * the machine or its noise.
 *
 * <p>Each run creates a tree with the EWOM model on ({@link PageFile#enableEwomModel()}), inserts
 * {@code preload} entries, writes every page back, and then runs {@code ops} operations, writing the
 * changed pages back after each one ({@code BufferPool.flush}, no commit): the paper's setting of
 * updates that reach the device one at a time, with no batching in a buffer pool. The counts of each
 * operation are the difference of the file's counts around its write-back. No commit happens during
 * the run, so the tree changes its pages in place rather than copying them (shadow paging copies a
 * page only once after each commit), which is the logical-page view the paper's model takes.
 *
 * <p>Workloads: the share of inserts (insert-heavy 90%, mixed 50%, delete-heavy 10%; the rest
 * delete a present entry); keys random (uniform over {@code 2^40}, a random present entry deleted)
 * or sequential (increasing keys, the oldest entry deleted: a sliding window). Seeded, so a run
 * repeats exactly.
 *
 * <pre>
 *   java -cp ... dev.memwall.bench.index.FlashWriteCounts [pageBytes [preload [ops]]]
 * </pre>
 *
 * <p>Prints a Markdown table. Bad arguments: {@link NumberFormatException} or
 * {@link IllegalArgumentException} naming them.
 */
public final class FlashWriteCounts {
  /** The formats compared: the three of seed 002 and the paper's flash leaf. */
  public static final DiskTreeType[] FORMATS = {DiskTreeType.SLOTTED, DiskTreeType.MICRO_INDEX,
      DiskTreeType.FPB_DISK_FIRST, DiskTreeType.FLASH_LEAF};

  /** Share of inserts among the operations (the rest are deletes of present entries). */
  public enum Workload {
    INSERT_HEAVY(90), MIXED(50), DELETE_HEAVY(10);

    final int insertPercent;

    Workload(int insertPercent) {
      this.insertPercent = insertPercent;
    }
  }

  /** Random keys (random deletes) or increasing keys (the oldest deleted first). */
  public enum KeyOrder { RANDOM, SEQUENTIAL }

  /**
   * The counts of one run.
   *
   * @param inserts inserts run
   * @param deletes deletes run
   * @param onInserts what the inserts' write-backs counted
   * @param onDeletes what the deletes' write-backs counted
   * @param leafCapacity entries a leaf page of the format holds
   * @param height the tree's height at the end
   */
  public record Result(DiskTreeType format, Workload workload, KeyOrder order, long inserts, long deletes,
      EwomCounts onInserts, EwomCounts onDeletes, int leafCapacity, int height) {
    public EwomCounts all() {
      return onInserts.plus(onDeletes);
    }

    public long ops() {
      return inserts + deletes;
    }
  }

  private FlashWriteCounts() {}

  /** The configuration of one format: int64 keys, widths by goal G from fixed T1/Tnext (240, 24). */
  public static DiskTreeConfig config(DiskTreeType format, int pageBytes) {
    return DiskIndexes.chooseConfig(KeyType.INT64, format, pageBytes, 240, 24).withPoolFrames(4096);
  }

  /**
   * Runs one format and workload in a new file under {@code dir} (deleted afterwards).
   *
   * @throws IllegalArgumentException if {@code preload} is below the deletes the workload may need
   */
  public static Result run(DiskTreeType format, Workload workload, KeyOrder order, int pageBytes, int preload, int ops,
      EngineMemory memory, Path dir) {
    if (preload < 1 || ops < 0 || (long) ops * (100 - workload.insertPercent) / 100 + ops / 10 >= preload) {
      throw new IllegalArgumentException("a preload of " + preload + " entries is too small for " + ops + " "
          + workload + " operations");
    }
    Path file = dir.resolve(format + "-" + workload + "-" + order + ".pages");
    SplittableRandom random = new SplittableRandom(2008L * 31 + workload.ordinal() * 7 + order.ordinal());
    int capacity = preload + ops + 1;
    long[] keys = new long[capacity]; // present entries: [head, tail) (sequential) or [0, tail) (random)
    long[] rows = new long[capacity];
    int head = 0;
    int tail = 0;
    long nextKey = 0;
    long nextRow = 0;
    long inserts = 0;
    long deletes = 0;
    EwomCounts onInserts = EwomCounts.ZERO;
    EwomCounts onDeletes = EwomCounts.ZERO;
    try (DiskBPlusTree tree = DiskBPlusTree.create(file, config(format, pageBytes), memory)) {
      PageFile pages = tree.pool().file();
      pages.enableEwomModel();
      for (int i = 0; i < preload + ops; i++) {
        boolean measured = i >= preload;
        boolean insert = !measured || random.nextInt(100) < workload.insertPercent;
        EwomCounts before = measured ? pages.ewomCounts() : null;
        if (insert) {
          long key = order == KeyOrder.SEQUENTIAL ? nextKey++ : random.nextLong(1L << 40);
          tree.insert(key, nextRow);
          keys[tail] = key;
          rows[tail++] = nextRow++;
        } else {
          int at = order == KeyOrder.SEQUENTIAL ? head++ : random.nextInt(tail);
          if (!tree.delete(keys[at], rows[at])) {
            throw new IllegalStateException("entry (" + keys[at] + ", " + rows[at] + ") was not in " + tree);
          }
          if (order == KeyOrder.RANDOM) {
            keys[at] = keys[--tail];
            rows[at] = rows[tail];
          }
        }
        if (measured) {
          tree.pool().flush();
          EwomCounts d = pages.ewomCounts().minus(before);
          if (insert) {
            inserts++;
            onInserts = onInserts.plus(d);
          } else {
            deletes++;
            onDeletes = onDeletes.plus(d);
          }
        } else if (i == preload - 1) {
          tree.pool().flush();
        }
      }
      tree.checkInvariants();
      if (tree.size() != (order == KeyOrder.SEQUENTIAL ? tail - head : tail)) {
        throw new IllegalStateException(tree + " holds " + tree.size() + " entries, the workload left "
            + (tail - head));
      }
      return new Result(format, workload, order, inserts, deletes, onInserts, onDeletes,
          tree.leafFormat().capacity(), tree.height());
    } finally {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** One Markdown table row of {@code r}. */
  public static String row(Result r) {
    return String.format(Locale.ROOT, "| %s | %s | %s | %d | %.4f | %.4f | %.4f | %.3f | %.1f |", r.format(),
        r.workload(), r.order(), r.leafCapacity(), per(r.all().pageWriteSteps(), r.ops()),
        per(r.onInserts().pageWriteSteps(), r.inserts()), per(r.onDeletes().pageWriteSteps(), r.deletes()),
        per(r.all().inPlaceUpdates(), r.ops()), per(r.all().inPlaceBytes(), r.all().inPlaceUpdates()));
  }

  private static double per(long count, long of) {
    return of == 0 ? 0 : (double) count / of;
  }

  public static void main(String[] args) throws IOException {
    int pageBytes = args.length > 0 ? Integer.parseInt(args[0]) : 8192;
    int preload = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
    int ops = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
    Path dir = Files.createTempDirectory("memwall-ewom");
    try (EngineMemory memory = EngineMemory.create("flash-write-counts")) {
      System.out.println("EWOM counts, " + pageBytes + "-byte pages, int64 keys, " + preload + " entries preloaded, "
          + ops + " operations each written back alone");
      System.out.println();
      System.out.println("| format | workload | keys | leaf capacity | page-write steps/op | per insert | per delete "
          + "| in-place updates/op | bytes/in-place update |");
      System.out.println("|---|---|---|---:|---:|---:|---:|---:|---:|");
      for (KeyOrder order : KeyOrder.values()) {
        for (Workload w : Workload.values()) {
          for (DiskTreeType f : FORMATS) {
            System.out.println(row(run(f, w, order, pageBytes, preload, ops, memory, dir)));
          }
        }
      }
    } finally {
      Files.deleteIfExists(dir);
    }
  }
}
