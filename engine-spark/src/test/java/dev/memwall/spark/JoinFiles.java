package dev.memwall.spark;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/**
 * Arrow files of two tables to join, for the property tests of accelerated joins: columns {@code id}
 * (int32, never null), {@code k} (int32, skewed: a share of the rows on key 0, more on 1, the rest spread
 * over 200 keys), {@code kd} (a double key: NaN of two bit patterns, -0.0, 0.0, infinities and a few
 * numbers), {@code s} (a string key of {@link TypedFiles#WORDS}), {@code g} (int32 from 0 to 9),
 * {@code v} (int64) and {@code x} (double, with NaN and -0.0). Every column but {@code id} is null in
 * about one row in eight.
 */
final class JoinFiles {
  private static final double[] KEYS = {Double.NaN, Double.longBitsToDouble(0x7ff8000000000abcL), -0.0, 0.0,
      Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5, -2.5, 7.0};

  private JoinFiles() {}

  /**
   * Writes {@code file}: {@code rows} rows (none: one empty batch) in batches of at most 1,024, drawn from
   * {@code seed}; {@code skew} is the share of rows whose {@code k} is 0 (as much again is on 1).
   */
  static void write(Path file, int rows, double skew, long seed, EngineMemory memory) throws IOException {
    Random random = new Random(seed);
    try (TableBuilder builder = new TableBuilder(List.of("id", "k", "kd", "s", "g", "v", "x"),
        List.of(ColumnType.INT32, ColumnType.INT32, ColumnType.FLOAT64, ColumnType.STRING, ColumnType.INT32,
            ColumnType.INT64, ColumnType.FLOAT64), memory.arrow()).batchRows(1024)) {
      for (int id = 0; id < rows; id++) {
        builder.appendLong(id);
        double draw = random.nextDouble();
        appendLong(builder, random, draw < skew ? 0 : draw < 2 * skew ? 1 : random.nextInt(200));
        if (random.nextInt(8) == 0) {
          builder.appendNull();
        } else {
          builder.appendDouble(KEYS[random.nextInt(KEYS.length)]);
        }
        if (random.nextInt(8) == 0) {
          builder.appendNull();
        } else {
          builder.appendString(TypedFiles.WORDS[random.nextInt(TypedFiles.WORDS.length)]
              .getBytes(StandardCharsets.UTF_8));
        }
        appendLong(builder, random, random.nextInt(10));
        appendLong(builder, random, random.nextInt(2001) - 1000);
        if (random.nextInt(8) == 0) {
          builder.appendNull();
        } else {
          int pick = random.nextInt(16);
          builder.appendDouble(pick == 0 ? Double.NaN : pick == 1 ? -0.0 : random.nextGaussian() * 100);
        }
        builder.endRow();
      }
      try (Table table = builder.build()) {
        ArrowFiles.write(file, table, memory.arrow());
      }
    }
  }

  private static void appendLong(TableBuilder builder, Random random, long value) {
    if (random.nextInt(8) == 0) {
      builder.appendNull();
    } else {
      builder.appendLong(value);
    }
  }
}
