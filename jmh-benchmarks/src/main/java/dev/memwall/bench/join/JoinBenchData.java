package dev.memwall.bench.join;

import dev.memwall.bench.ZipfRanks;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Join benchmark inputs: one Arrow batch with an int32 key "k" and an int32 payload "p" (the
 * seeds' 8-byte tuples: 4-byte key, 4-byte payload), or with the key alone.
 */
public final class JoinBenchData {
  private static final Field KEY = new Field("k", FieldType.notNullable(new ArrowType.Int(32, true)), null);
  private static final Schema SCHEMA = new Schema(List.of(KEY,
      new Field("p", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
  private static final Schema KEY_SCHEMA = new Schema(List.of(KEY));

  private JoinBenchData() {}

  /** Keys 1..n, each once, in random order (the seed's unique uniform keys; Balkesen's build side). */
  static Table uniqueShuffled(EngineMemory memory, int n, long seed) {
    return uniqueShuffled(memory, n, seed, 1);
  }

  /**
   * {@link #uniqueShuffled(EngineMemory, int, long)} with every key times {@code stride}: the same
   * join, its keys spread over a range {@code stride} times as wide ({@code n * stride} must fit an int).
   */
  static Table uniqueShuffled(EngineMemory memory, int n, long seed, int stride) {
    int[] keys = new int[n];
    for (int i = 0; i < n; i++) {
      keys[i] = Math.multiplyExact(i + 1, stride);
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = keys[i];
      keys[i] = keys[j];
      keys[j] = t;
    }
    return table(memory, keys);
  }

  /**
   * {@code n} foreign keys into 1..domain: uniform when {@code zipf == 0}, else Zipf-distributed
   * with exponent {@code zipf} over ranks that are scattered across the domain.
   */
  static Table foreignKeys(EngineMemory memory, int n, int domain, double zipf, long seed) {
    return foreignKeys(memory, n, domain, zipf, seed, 1);
  }

  /** {@link #foreignKeys(EngineMemory, int, int, double, long)} with every key times {@code stride}. */
  static Table foreignKeys(EngineMemory memory, int n, int domain, double zipf, long seed, int stride) {
    SplittableRandom random = new SplittableRandom(seed);
    int[] keys = new int[n];
    if (zipf == 0) {
      for (int i = 0; i < n; i++) {
        keys[i] = (1 + random.nextInt(domain)) * stride;
      }
    } else {
      ZipfRanks ranks = new ZipfRanks(domain, zipf);
      for (int i = 0; i < n; i++) {
        int rank = ranks.next(random);
        // rank r becomes key (r * odd) mod domain + 1: heavy hitters are not the smallest keys
        keys[i] = ((int) ((rank * 2_654_435_761L) % domain) + 1) * stride;
      }
    }
    return table(memory, keys);
  }

  /** One batch holding {@code keys} as the int32 column "k" and nothing else; the caller owns it. */
  public static Table keysOnly(EngineMemory memory, int[] keys) {
    return table(memory, keys, KEY_SCHEMA);
  }

  private static Table table(EngineMemory memory, int[] keys) {
    return table(memory, keys, SCHEMA);
  }

  /** {@code keys} as "k" and, when the schema has it, the row number as payload "p". */
  private static Table table(EngineMemory memory, int[] keys, Schema schema) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow());
    try {
      IntVector k = (IntVector) root.getVector(0);
      k.allocateNew(keys.length);
      for (int i = 0; i < keys.length; i++) {
        k.set(i, keys[i]);
      }
      k.setValueCount(keys.length);
      if (schema.getFields().size() > 1) {
        IntVector p = (IntVector) root.getVector(1);
        p.allocateNew(keys.length);
        for (int i = 0; i < keys.length; i++) {
          p.set(i, i);
        }
        p.setValueCount(keys.length);
      }
      root.setRowCount(keys.length);
      return Table.own(schema, List.of(root), Map.of());
    } catch (RuntimeException | Error e) {
      root.close();
      throw e;
    }
  }
}
