package dev.memwall.join;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import dev.memwall.join.common.JoinIndex;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.common.PairChunk;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Join inputs for tests: key columns as plain Java arrays (null = SQL NULL) turned into Arrow
 * tables of one or more batches, plus a payload column "p_" + side holding the row number.
 */
final class JoinTestData {
  /** Key column types. */
  enum KeyType { INT32, INT64 }

  /** How keys are drawn. */
  enum Distribution { UNIQUE, RANDOM, DUPLICATE_HEAVY, ZIPF_05, ZIPF_10, ZIPF_15, TYPE_LIMITS }

  /** One side: keys[column][row], null for a null key value. */
  record Side(List<KeyType> types, Long[][] keys, int[] batchSizes) {
    int rows() {
      return keys.length == 0 ? 0 : keys[0].length;
    }

    Long key(int column, int row) {
      return keys[column][row];
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder(types + " batches " + Arrays.toString(batchSizes) + ":");
      for (int r = 0; r < Math.min(rows(), 40); r++) {
        s.append(' ').append('(');
        for (int c = 0; c < keys.length; c++) {
          s.append(c > 0 ? "," : "").append(keys[c][r]);
        }
        s.append(')');
      }
      return s.toString();
    }
  }

  private JoinTestData() {}

  static String keyName(int column) {
    return "k" + column;
  }

  /** Draws {@code rows} keys per column. */
  static Side generate(Random random, List<KeyType> types, int rows, Distribution distribution, int domain,
      double nullFraction) {
    Long[][] keys = new Long[types.size()][rows];
    double[] zipf = switch (distribution) {
      case ZIPF_05 -> zipfCdf(domain, 0.5);
      case ZIPF_10 -> zipfCdf(domain, 1.0);
      case ZIPF_15 -> zipfCdf(domain, 1.5);
      default -> null;
    };
    for (int c = 0; c < types.size(); c++) {
      KeyType type = types.get(c);
      for (int r = 0; r < rows; r++) {
        if (random.nextDouble() < nullFraction) {
          keys[c][r] = null;
          continue;
        }
        long rank = switch (distribution) {
          case UNIQUE -> r;
          case RANDOM -> random.nextInt(Math.max(1, domain));
          case DUPLICATE_HEAVY -> random.nextInt(Math.max(1, Math.min(domain, 3)));
          case ZIPF_05, ZIPF_10, ZIPF_15 -> sample(zipf, random);
          case TYPE_LIMITS -> random.nextInt(4);
        };
        keys[c][r] = distribution == Distribution.TYPE_LIMITS ? limit(type, rank) : value(type, rank, c);
      }
    }
    return new Side(List.copyOf(types), keys, batches(random, rows));
  }

  /** Rank to key: spread over the type's range so signs and high bits are exercised. */
  private static long value(KeyType type, long rank, int column) {
    long v = rank * 2_654_435_761L + column;
    return type == KeyType.INT32 ? (int) (v - (1L << 20)) : v * 1_000_003L - (1L << 40);
  }

  private static long limit(KeyType type, long rank) {
    return switch ((int) rank) {
      case 0 -> type == KeyType.INT32 ? Integer.MIN_VALUE : Long.MIN_VALUE;
      case 1 -> type == KeyType.INT32 ? Integer.MAX_VALUE : Long.MAX_VALUE;
      case 2 -> 0;
      default -> -1;
    };
  }

  private static double[] zipfCdf(int domain, double s) {
    double[] cdf = new double[Math.max(1, domain)];
    double sum = 0;
    for (int i = 0; i < cdf.length; i++) {
      sum += 1 / Math.pow(i + 1, s);
      cdf[i] = sum;
    }
    for (int i = 0; i < cdf.length; i++) {
      cdf[i] /= sum;
    }
    return cdf;
  }

  private static long sample(double[] cdf, Random random) {
    int i = Arrays.binarySearch(cdf, random.nextDouble());
    return Math.min(cdf.length - 1, i < 0 ? -i - 1 : i);
  }

  private static int[] batches(Random random, int rows) {
    int count = 1 + random.nextInt(3);
    int[] sizes = new int[count];
    int left = rows;
    for (int b = 0; b < count - 1; b++) {
      sizes[b] = left == 0 ? 0 : random.nextInt(left + 1);
      left -= sizes[b];
    }
    sizes[count - 1] = left;
    return sizes;
  }

  /** The Arrow table of {@code side}: key columns k0, k1, ... and payload "p_" + {@code suffix}. */
  static Table table(EngineMemory memory, Side side, String suffix) {
    List<Field> fields = new ArrayList<>();
    for (int c = 0; c < side.types().size(); c++) {
      ArrowType type = side.types().get(c) == KeyType.INT32 ? new ArrowType.Int(32, true) : new ArrowType.Int(64, true);
      fields.add(new Field(keyName(c), FieldType.nullable(type), null));
    }
    fields.add(new Field("p_" + suffix, FieldType.nullable(new ArrowType.Int(32, true)), null));
    Schema schema = new Schema(fields);
    List<VectorSchemaRoot> roots = new ArrayList<>();
    int row = 0;
    try {
      for (int size : side.batchSizes()) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, memory.arrow());
        roots.add(root);
        root.allocateNew();
        for (int c = 0; c <= side.types().size(); c++) {
          FieldVector vector = root.getVector(c);
          for (int i = 0; i < size; i++) {
            Long v = c < side.types().size() ? side.key(c, row + i) : Long.valueOf(row + i);
            switch (vector) {
              case IntVector ints -> {
                if (v == null) {
                  ints.setNull(i);
                } else {
                  ints.setSafe(i, (int) (long) v);
                }
              }
              case BigIntVector longs -> {
                if (v == null) {
                  longs.setNull(i);
                } else {
                  longs.setSafe(i, v);
                }
              }
              default -> throw new IllegalStateException();
            }
          }
          vector.setValueCount(size);
        }
        root.setRowCount(size);
        row += size;
      }
    } catch (RuntimeException e) {
      roots.forEach(VectorSchemaRoot::close);
      throw e;
    }
    return Table.own(schema, roots, Map.of());
  }

  /** The nested-loop reference: every result pair as {@code left * 2^32 + (right + 1)}, sorted. */
  static long[] reference(Side left, Side right, JoinType type) {
    List<Long> out = new ArrayList<>();
    for (int l = 0; l < left.rows(); l++) {
      int matches = 0;
      for (int r = 0; r < right.rows(); r++) {
        if (equalKeys(left, l, right, r)) {
          matches++;
          if (type == JoinType.INNER || type == JoinType.LEFT_OUTER) {
            out.add(pair(l, r));
          }
        }
      }
      if (matches == 0 ? type.reportsUnmatched() : type == JoinType.SEMI) {
        out.add(pair(l, JoinIndex.NO_ROW));
      }
    }
    return out.stream().mapToLong(Long::longValue).sorted().toArray();
  }

  private static boolean equalKeys(Side left, int l, Side right, int r) {
    for (int c = 0; c < left.keys().length; c++) {
      Long a = left.key(c, l);
      Long b = right.key(c, r);
      if (a == null || b == null || !a.equals(b)) {
        return false;
      }
    }
    return true;
  }

  static long pair(int left, int right) {
    return ((long) left << 32) + (right + 1L);
  }

  /** The pairs of an index, encoded as {@link #pair} and sorted. */
  static long[] pairs(JoinIndex index) {
    long[] all = new long[Math.toIntExact(index.size())];
    int i = 0;
    for (PairChunk chunk : index.chunks()) {
      for (int k = 0; k < chunk.size(); k++) {
        all[i++] = pair(chunk.left(k), chunk.right(k));
      }
    }
    Arrays.sort(all);
    return all;
  }
}
