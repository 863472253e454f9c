package dev.memwall.index.temporal;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.temporal.LayoutKind;
import java.nio.file.Path;
import java.util.Random;

/**
 * The child process of {@link PagedTemporalCrashTest}: appends a seeded random sequence of versions
 * to a page-file temporal table, syncing every {@code batch} appends and printing {@code committed
 * N} after each sync returns, until it is killed.
 *
 * <p>Arguments: file, layout, seed, batch.
 */
public final class TemporalCrashChild {
  static final int ENTITIES = 60;
  static final int ATTRIBUTES = 4;

  private TemporalCrashChild() {}

  /** The i-th append of the sequence: {surrogate, time, values...}; every entity's times rise. */
  static long[] operation(Random random, int i) {
    long[] op = new long[2 + ATTRIBUTES];
    op[0] = random.nextInt(ENTITIES) * 1_000_003L - 7;
    op[1] = i;
    for (int a = 0; a < ATTRIBUTES; a++) {
      op[2 + a] = a == 0 ? random.nextInt(3) : random.nextInt(1000);
    }
    return op;
  }

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    LayoutKind kind = LayoutKind.valueOf(args[1]);
    long seed = Long.parseLong(args[2]);
    int batch = Integer.parseInt(args[3]);
    EngineMemory memory = EngineMemory.create("temporal crash child");
    PagedTemporalTable table = PagedTemporalTable.create(file, kind, ATTRIBUTES, PagedTemporalTableProperties.SMALL,
        memory);
    System.out.println("committed 0");
    System.out.flush();
    Random random = new Random(seed);
    for (int i = 0; ; i++) {
      long[] op = operation(random, i);
      table.append(op[0], op[1], java.util.Arrays.copyOfRange(op, 2, op.length));
      if ((i + 1) % batch == 0) {
        table.sync();
        System.out.println("committed " + (i + 1));
        System.out.flush();
      }
    }
  }
}
