package dev.memwall.join.keys;

import dev.memwall.core.hash.Hashing;
import dev.memwall.core.partition.PackedTuples;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Int32Column;
import dev.memwall.core.vector.Int64Column;
import dev.memwall.core.vector.RowLocator;
import dev.memwall.core.vector.Table;
import dev.memwall.join.common.JoinKeyException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * The key columns of one join input, validated, with a fast extraction of (hash, row id) tuples.
 *
 * <p>Row ids are global: the row's position in the table, counting through its batches in order.
 * A table may hold at most {@link Integer#MAX_VALUE} rows.
 *
 * <p>Ownership: borrows the table, which must stay open while this is used. Thread safety:
 * immutable; concurrent extraction of different row ranges is safe.
 */
public final class KeyColumns {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfLong HASH = ValueLayout.JAVA_LONG;
  private static final ValueLayout.OfInt ROW = ValueLayout.JAVA_INT;
  private static final long WIDE_SEED = 0x2545F4914F6CDD1DL;
  /** Keys {@link #forEachKey} reads at a time. */
  private static final int KEY_BLOCK = 1024;

  private final List<String> names;
  private final List<ColumnType> types;
  private final KeyShape shape;
  private final Column[][] columns;
  private final MemorySegment[][] data;
  private final int[] batchStart;
  private final RowLocator locator;
  private final int rowCount;
  private final long nullBound;

  private KeyColumns(Table table, List<String> names, KeyShape shape) {
    this.names = List.copyOf(names);
    this.types = names.stream().map(name -> ColumnType.of(table.schema().findField(name))).toList();
    this.shape = shape;
    List<Batch> batches = table.batches();
    this.columns = new Column[batches.size()][];
    this.data = new MemorySegment[batches.size()][];
    this.batchStart = new int[batches.size() + 1];
    long rows = 0;
    long nulls = 0;
    for (int b = 0; b < batches.size(); b++) {
      Batch batch = batches.get(b);
      columns[b] = new Column[names.size()];
      data[b] = new MemorySegment[names.size()];
      for (int k = 0; k < names.size(); k++) {
        Column column = batch.column(names.get(k));
        columns[b][k] = column;
        data[b][k] = switch (column) {
          case Int32Column ints -> ints.data();
          case Int64Column longs -> longs.data();
          default -> throw new JoinKeyException("key column '" + names.get(k) + "' is " + column.type()
              + " read from Arrow " + column.arrow().getField().getType() + "; a join reads its keys straight "
              + "from int32, date(day) or int64 memory: cast the key (Expr.cast) in a projection first");
        };
        nulls += column.arrow().getNullCount();
      }
      batchStart[b] = (int) rows;
      rows += batch.rowCount();
      if (rows > Integer.MAX_VALUE) {
        throw new JoinKeyException("join input with key " + names + " has more than " + Integer.MAX_VALUE
            + " rows; row ids are 32-bit");
      }
    }
    batchStart[batches.size()] = (int) rows;
    this.locator = RowLocator.of(batches);
    this.rowCount = (int) rows;
    this.nullBound = Math.min(rows, nulls);
  }

  /**
   * Validates the key columns of both inputs and returns them as {@code [left, right]}.
   *
   * @throws JoinKeyException naming the columns when a column is missing, has an unsupported type,
   *     the sides have different numbers of keys, or paired keys differ in type
   */
  public static KeyColumns[] pair(Table left, List<String> leftKeys, Table right, List<String> rightKeys) {
    if (leftKeys.isEmpty()) {
      throw new JoinKeyException("a join needs at least one key column");
    }
    if (leftKeys.size() != rightKeys.size()) {
      throw new JoinKeyException("left keys " + leftKeys + " and right keys " + rightKeys
          + " differ in number");
    }
    List<ColumnType> leftTypes = types(left, leftKeys, "left");
    List<ColumnType> rightTypes = types(right, rightKeys, "right");
    requireSameTypes(leftKeys, leftTypes, rightKeys, rightTypes);
    KeyShape shape = shapeOf(leftTypes);
    return new KeyColumns[] {new KeyColumns(left, leftKeys, shape), new KeyColumns(right, rightKeys, shape)};
  }

  /**
   * Validates the key columns of one input whose partner is not a table (the build side of a
   * pipelined join, probed by a stream of chunks): {@link #types()} then tells what the partner's
   * keys must be.
   *
   * @throws JoinKeyException naming the column when one is missing or has an unsupported type
   */
  public static KeyColumns of(Table table, List<String> keys, String side) {
    if (keys.isEmpty()) {
      throw new JoinKeyException("a join needs at least one key column");
    }
    return new KeyColumns(table, keys, shapeOf(types(table, keys, side)));
  }

  /**
   * Checks that keys of {@code types} can be joined with keys of {@code partnerTypes}, pair by pair.
   *
   * @throws JoinKeyException naming the keys when the numbers or a pair's types differ
   */
  public static void requireSameTypes(List<String> names, List<ColumnType> types, List<String> partnerNames,
      List<ColumnType> partnerTypes) {
    if (names.size() != partnerNames.size()) {
      throw new JoinKeyException("left keys " + names + " and right keys " + partnerNames + " differ in number");
    }
    for (int k = 0; k < names.size(); k++) {
      if (!types.get(k).equals(partnerTypes.get(k))) {
        throw new JoinKeyException("key types differ: left '" + names.get(k) + "' is " + types.get(k)
            + ", right '" + partnerNames.get(k) + "' is " + partnerTypes.get(k)
            + "; cast one side so both keys have the same type");
      }
    }
  }

  /**
   * Checks that a key column of {@code type} can be joined on.
   *
   * @throws JoinKeyException naming the column unless it is int32, date or int64
   */
  public static void requireKeyType(String side, String key, ColumnType type) {
    if (type.kind() != ColumnType.Kind.INT32 && type.kind() != ColumnType.Kind.INT64
        && type.kind() != ColumnType.Kind.DATE) {
      throw new JoinKeyException(side + " key column '" + key + "' is " + type
          + "; joins support int32, date and int64 keys");
    }
  }

  private static List<ColumnType> types(Table table, List<String> keys, String side) {
    List<ColumnType> types = new ArrayList<>();
    for (String key : keys) {
      int index;
      try {
        index = table.columnIndex(key);
      } catch (IllegalArgumentException e) {
        throw new JoinKeyException("no " + side + " key column '" + key + "': " + e.getMessage());
      }
      ColumnType type;
      try {
        type = ColumnType.of(table.schema().getFields().get(index));
      } catch (IllegalArgumentException e) {
        throw new JoinKeyException(side + " key column '" + key + "' has an unsupported type: " + e.getMessage());
      }
      requireKeyType(side, key, type);
      types.add(type);
    }
    return types;
  }

  private static KeyShape shapeOf(List<ColumnType> types) {
    boolean allNarrow = types.stream().allMatch(t -> t.kind() != ColumnType.Kind.INT64);
    if (types.size() == 1) {
      return allNarrow ? KeyShape.INT32 : KeyShape.INT64;
    }
    return types.size() == 2 && allNarrow ? KeyShape.TWO_INT32 : KeyShape.WIDE;
  }

  public List<String> names() {
    return names;
  }

  /** The key columns' types, in key order. */
  public List<ColumnType> types() {
    return types;
  }

  public KeyShape shape() {
    return shape;
  }

  /** Rows in the input, null keys included. */
  public int rowCount() {
    return rowCount;
  }

  /** At least as many as the rows with a null key. */
  public long nullBound() {
    return nullBound;
  }

  public int batches() {
    return columns.length;
  }

  /** Global row id of the first row of {@code batch}. */
  public int batchStart(int batch) {
    return batchStart[batch];
  }

  public int batchRows(int batch) {
    return batchStart[batch + 1] - batchStart[batch];
  }

  /**
   * Calls {@code action} with the key of every row whose key is not null, for a key of one INT32
   * or INT64 column (an int32 or date key as its int value).
   *
   * @throws IllegalStateException for a key of another {@link KeyShape}
   */
  public void forEachKey(LongConsumer action) {
    if (shape != KeyShape.INT32 && shape != KeyShape.INT64) {
      throw new IllegalStateException("a " + shape + " key is not one integral column");
    }
    long[] keys = new long[KEY_BLOCK];
    int[] rows = new int[KEY_BLOCK];
    for (int b = 0; b < columns.length; b++) {
      for (int from = 0, count = batchRows(b); from < count; from += KEY_BLOCK) {
        int n = readKeys(b, from, Math.min(count, from + KEY_BLOCK), keys, rows);
        for (int i = 0; i < n; i++) {
          action.accept(keys[i]);
        }
      }
    }
  }

  /**
   * For a key of one INT32 or INT64 column: writes the key (an int32 or date key as its int value)
   * and the global row id of each row of {@code [from, to)} of {@code batch} whose key is not null
   * to {@code keys[0...]} and {@code rows[0...]}, in row order; returns how many. Both arrays need
   * room for {@code to - from}.
   *
   * @throws IllegalStateException for a key of another {@link KeyShape}
   */
  public int readKeys(int batch, int from, int to, long[] keys, int[] rows) {
    if (shape != KeyShape.INT32 && shape != KeyShape.INT64) {
      throw new IllegalStateException("a " + shape + " key is not one integral column");
    }
    Column column = columns[batch][0];
    MemorySegment values = data[batch][0];
    int base = batchStart[batch];
    boolean nullable = column.hasNulls();
    boolean ints = shape == KeyShape.INT32;
    int n = 0;
    for (int i = from; i < to; i++) {
      keys[n] = ints ? values.getAtIndex(INT, i) : values.getAtIndex(LONG, i);
      rows[n] = base + i;
      n += nullable && column.isNull(i) ? 0 : 1;
    }
    return n;
  }

  /**
   * Writes (hash, global row id) for the rows {@code [from, to)} of {@code batch} whose key has no
   * null at {@code hashes[at...]} and {@code rows[at...]}, and the global row ids of the rows with a
   * null key at {@code nullRows[nullAt...]} (dropped when {@code nullRows} is null).
   *
   * @return {@code (nullKeys << 32) | keyed}: how many tuples and null rows were written
   */
  public long extract(int batch, int from, int to, MemorySegment hashes, MemorySegment rows, long at,
      MemorySegment nullRows, long nullAt) {
    Column[] cols = columns[batch];
    MemorySegment[] segs = data[batch];
    int base = batchStart[batch];
    boolean nullable = false;
    for (Column c : cols) {
      nullable |= c.hasNulls();
    }
    if (!nullable && shape != KeyShape.WIDE) {
      MemorySegment first = segs[0];
      long k = at;
      switch (shape) {
        case INT32 -> {
          for (int i = from; i < to; i++, k++) {
            hashes.setAtIndex(HASH, k, Hashing.mix64(first.getAtIndex(INT, i)));
            rows.setAtIndex(ROW, k, base + i);
          }
        }
        case INT64 -> {
          for (int i = from; i < to; i++, k++) {
            hashes.setAtIndex(HASH, k, Hashing.mix64(first.getAtIndex(LONG, i)));
            rows.setAtIndex(ROW, k, base + i);
          }
        }
        default -> {
          MemorySegment second = segs[1];
          for (int i = from; i < to; i++, k++) {
            long packed = ((long) first.getAtIndex(INT, i) << 32) | (second.getAtIndex(INT, i) & 0xFFFF_FFFFL);
            hashes.setAtIndex(HASH, k, Hashing.mix64(packed));
            rows.setAtIndex(ROW, k, base + i);
          }
        }
      }
      return to - from;
    }
    long keyed = 0;
    long nulls = 0;
    for (int i = from; i < to; i++) {
      if (anyNull(cols, i)) {
        if (nullRows != null) {
          nullRows.setAtIndex(ROW, nullAt + nulls, base + i);
        }
        nulls++;
      } else {
        hashes.setAtIndex(HASH, at + keyed, hash(cols, segs, i));
        rows.setAtIndex(ROW, at + keyed, base + i);
        keyed++;
      }
    }
    return (nulls << 32) | keyed;
  }

  /**
   * Writes the {@link PackedTuples} (key, global row id) of the rows {@code [from, to)} of
   * {@code batch} whose key is not null at {@code tuples[at...]}; returns how many. Rows with a
   * null key are skipped ({@link #nullRows} lists them).
   *
   * @throws IllegalStateException unless the key is one {@link KeyShape#INT32} column
   */
  public int extractPacked(int batch, int from, int to, MemorySegment tuples, long at) {
    if (shape != KeyShape.INT32) {
      throw new IllegalStateException("a " + shape + " key does not fit a packed tuple");
    }
    Column column = columns[batch][0];
    MemorySegment keys = data[batch][0];
    int base = batchStart[batch];
    if (!column.hasNulls()) {
      for (int i = from; i < to; i++) {
        tuples.setAtIndex(PackedTuples.WORD, at + i - from, PackedTuples.pack(keys.getAtIndex(INT, i), base + i));
      }
      return to - from;
    }
    int keyed = 0;
    for (int i = from; i < to; i++) {
      if (!column.isNull(i)) {
        tuples.setAtIndex(PackedTuples.WORD, at + keyed++, PackedTuples.pack(keys.getAtIndex(INT, i), base + i));
      }
    }
    return keyed;
  }

  /**
   * Writes the global row ids of the rows of {@code batch} with a null in their key at
   * {@code into[at...]}; returns how many.
   */
  public int nullRows(int batch, MemorySegment into, long at) {
    Column[] cols = columns[batch];
    int base = batchStart[batch];
    int nulls = 0;
    for (int i = 0, rows = batchRows(batch); i < rows; i++) {
      if (anyNull(cols, i)) {
        into.setAtIndex(ROW, at + nulls++, base + i);
      }
    }
    return nulls;
  }

  private long hash(Column[] cols, MemorySegment[] segs, int i) {
    return switch (shape) {
      case INT32 -> Hashing.mix64(segs[0].getAtIndex(INT, i));
      case INT64 -> Hashing.mix64(segs[0].getAtIndex(LONG, i));
      case TWO_INT32 -> Hashing.mix64(((long) segs[0].getAtIndex(INT, i) << 32)
          | (segs[1].getAtIndex(INT, i) & 0xFFFF_FFFFL));
      case WIDE -> {
        long h = WIDE_SEED;
        for (Column c : cols) {
          h = Hashing.combine(h, c.getLong(i));
        }
        yield h;
      }
    };
  }

  /**
   * The join hashes of keys given by value, as {@link #extract} computes them for rows of this
   * shape: for each listed position {@code k = positions[i]}, {@code hashes[i]} is the hash of the
   * key {@code (keys[0][k], keys[1][k], ...)} (an int32 or date key as its int value).
   */
  public static void hashValues(KeyShape shape, long[][] keys, int[] positions, int n, long[] hashes) {
    switch (shape) {
      case INT32, INT64 -> {
        long[] first = keys[0];
        for (int i = 0; i < n; i++) {
          hashes[i] = Hashing.mix64(first[positions[i]]);
        }
      }
      case TWO_INT32 -> {
        long[] first = keys[0];
        long[] second = keys[1];
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          hashes[i] = Hashing.mix64((first[k] << 32) | (second[k] & 0xFFFF_FFFFL));
        }
      }
      case WIDE -> {
        for (int i = 0; i < n; i++) {
          int k = positions[i];
          long h = WIDE_SEED;
          for (long[] key : keys) {
            h = Hashing.combine(h, key[k]);
          }
          hashes[i] = h;
        }
      }
    }
  }

  /**
   * The join hashes (as {@link #extract} computes them) of up to {@code count} rows drawn uniformly
   * at random, with replacement, from the rows whose key is not null: a sample of the key
   * distribution that costs {@code count} random reads, whatever the table's size. Deterministic
   * for a given {@code seed}; fewer than {@code count} hashes when nulls make most draws miss.
   */
  public long[] sampleHashes(int count, long seed) {
    if (rowCount == 0 || count <= 0) {
      return new long[0];
    }
    SplittableRandom random = new SplittableRandom(seed);
    long[] hashes = new long[count];
    int taken = 0;
    for (int draw = 0; draw < 4 * count && taken < count; draw++) {
      int row = random.nextInt(rowCount);
      int b = batchOf(row);
      int local = row - batchStart[b];
      if (!anyNull(columns[b], local)) {
        hashes[taken++] = hash(columns[b], data[b], local);
      }
    }
    return taken == count ? hashes : Arrays.copyOf(hashes, taken);
  }

  private static boolean anyNull(Column[] cols, int i) {
    for (Column c : cols) {
      if (c.isNull(i)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the key of global row {@code row} here equals {@code (keys[0][k], keys[1][k], ...)}. */
  public boolean sameKey(int row, long[][] keys, int k) {
    int b = batchOf(row);
    Column[] mine = columns[b];
    int local = row - batchStart[b];
    for (int c = 0; c < mine.length; c++) {
      if (mine[c].isNull(local) || mine[c].getLong(local) != keys[c][k]) {
        return false;
      }
    }
    return true;
  }

  /** Whether the key of global row {@code row} here equals that of {@code otherRow} in {@code other}. */
  public boolean sameKey(int row, KeyColumns other, int otherRow) {
    int b = batchOf(row);
    int ob = other.batchOf(otherRow);
    Column[] mine = columns[b];
    Column[] theirs = other.columns[ob];
    int local = row - batchStart[b];
    int otherLocal = otherRow - other.batchStart[ob];
    for (int k = 0; k < mine.length; k++) {
      if (mine[k].isNull(local) || theirs[k].isNull(otherLocal)
          || mine[k].getLong(local) != theirs[k].getLong(otherLocal)) {
        return false;
      }
    }
    return true;
  }

  /** The batch holding global row {@code row}. */
  public int batchOf(int row) {
    return locator.batchOf(row);
  }

}
