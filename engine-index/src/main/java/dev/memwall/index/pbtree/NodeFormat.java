package dev.memwall.index.pbtree;

import dev.memwall.index.KeyType;
import dev.memwall.index.node.NodePool;

/**
 * The byte format of the nodes of a {@link PrefetchingBPlusTree} of {@code widthLines} cache lines
 * (seed 002 section 2.2: the key count and all keys come before the pointers, so a search reads
 * the keys first and only the line holding the pointer it follows).
 *
 * <pre>
 * non-leaf: [0,2) keynum  [2,4) level (>= 1)  [4,8) next sibling (-1: none)
 *           [8, 8 + K*kb) keys            [childOffset, + 4*(K+1)) child node ids
 * leaf:     [0,2) keynum  [2,4) level (0)     [4,8) next leaf (-1: none)
 *           [8,12) jump-pointer chunk hint  [12,16) slot hint (external jump-pointer array)
 *           [16, 16 + L*kb) keys          [rowIdOffset (8-aligned), + 8*L) row ids
 * </pre>
 *
 * A non-leaf with {@code keynum} separator keys has {@code keynum + 1} children; separator
 * {@code i} lies between child {@code i} and child {@code i + 1}: every key under child {@code i}
 * is {@code <=} it and every key under child {@code i + 1} is {@code >=} it (equal keys may sit on
 * both sides, since duplicates are allowed).
 */
public final class NodeFormat {
  /** Offset of the 2-byte key count in every node. */
  public static final long KEYNUM = 0;
  /** Offset of the 2-byte level (0 for leaves) in every node. */
  public static final long LEVEL = 2;
  /** Offset of the 4-byte next-sibling id (leaves: next leaf) in every node. */
  public static final long NEXT = 4;
  /** Offset of the leaf's 4-byte jump-pointer chunk hint. */
  public static final long HINT_CHUNK = 8;
  /** Offset of the leaf's 4-byte jump-pointer slot hint. */
  public static final long HINT_SLOT = 12;
  /** Offset of the first key of a non-leaf. */
  public static final long INNER_KEYS = 8;
  /** Offset of the first key of a leaf. */
  public static final long LEAF_KEYS = 16;
  /** The widest node this format allows, in lines. */
  public static final int MAX_WIDTH_LINES = 64;

  private final KeyType keyType;
  private final int widthLines;
  private final int nodeBytes;
  private final int innerKeys;
  private final long childOffset;
  private final int leafEntries;
  private final long rowIdOffset;

  /**
   * The format of {@code widthLines}-line nodes for {@code keyType} keys.
   *
   * @throws IllegalArgumentException if the width is outside 1 .. {@value #MAX_WIDTH_LINES}
   */
  public NodeFormat(KeyType keyType, int widthLines) {
    if (widthLines < 1 || widthLines > MAX_WIDTH_LINES) {
      throw new IllegalArgumentException("node width must be 1 .. " + MAX_WIDTH_LINES + " cache lines, got "
          + widthLines);
    }
    this.keyType = keyType;
    this.widthLines = widthLines;
    this.nodeBytes = widthLines * NodePool.LINE_BYTES;
    int kb = keyType.bytes();
    this.innerKeys = (int) ((nodeBytes - INNER_KEYS - Integer.BYTES) / (kb + Integer.BYTES));
    this.childOffset = INNER_KEYS + (long) innerKeys * kb;
    int entries = (int) ((nodeBytes - LEAF_KEYS) / (kb + Long.BYTES));
    while (align8(LEAF_KEYS + (long) entries * kb) + (long) entries * Long.BYTES > nodeBytes) {
      entries--;
    }
    this.leafEntries = entries;
    this.rowIdOffset = align8(LEAF_KEYS + (long) entries * kb);
  }

  private static long align8(long offset) {
    return (offset + 7) & -8L;
  }

  public KeyType keyType() {
    return keyType;
  }

  /** Cache lines per node (w). */
  public int widthLines() {
    return widthLines;
  }

  public int nodeBytes() {
    return nodeBytes;
  }

  /** Most separator keys in a non-leaf; it then has one child more. */
  public int innerKeys() {
    return innerKeys;
  }

  /** Most children of a non-leaf: the fan-out. */
  public int fanout() {
    return innerKeys + 1;
  }

  /** Offset of a non-leaf's first child id. */
  public long childOffset() {
    return childOffset;
  }

  /** Most (key, row id) entries in a leaf. */
  public int leafEntries() {
    return leafEntries;
  }

  /** Offset of a leaf's first row id. */
  public long rowIdOffset() {
    return rowIdOffset;
  }

  /** The 1-based cache line holding child pointer {@code i} of a non-leaf. */
  public int childLine(int i) {
    return (int) ((childOffset + 4L * i) / NodePool.LINE_BYTES) + 1;
  }

  /** The 1-based cache line holding row id {@code i} of a leaf. */
  public int rowIdLine(int i) {
    return (int) ((rowIdOffset + 8L * i) / NodePool.LINE_BYTES) + 1;
  }

  @Override
  public String toString() {
    return "NodeFormat[" + keyType + ", w=" + widthLines + ": " + fanout() + " children, " + leafEntries
        + " leaf entries]";
  }
}
