package dev.memwall.core.frequent;

import dev.memwall.core.hash.Hashing;
import dev.memwall.core.memory.BudgetExceededException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.DictionaryColumn;
import dev.memwall.core.vector.VarCharColumn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * A {@link SpaceSaving} summary over strings: each string is counted under a 64-bit hash of its UTF-8
 * bytes, and the bytes are kept only for the monitored strings, copied when a string takes a counter
 * over. A per-summary dictionary of every distinct string would grow with the stream, which is what
 * the summary exists to avoid; a hash costs m stored strings. A dictionary-encoded column's entries
 * are hashed once per dictionary, and its rows are counted by code.
 *
 * <p>Answers are the long summary's ({@link TopK}, {@link FrequentElements}) with the hashes as keys;
 * {@link #value} turns a key of the latest answer back into its string. Two distinct strings with the
 * same 64-bit hash count as one (about {@code d^2 / 2^65} likely for d distinct strings), reported
 * under whichever was monitored first.
 *
 * <p>Memory: the long summary's arrays, the monitored strings' bytes and the hashes of the last
 * dictionary's entries are charged to the {@link EngineMemory} until {@link #close}. Thread safety and bad input: as {@link SpaceSaving}; a
 * null string, or a column that is not a string column, throws {@link IllegalArgumentException}.
 */
public final class StringSpaceSaving implements AutoCloseable {
  private final EngineMemory memory;
  private final SpaceSaving summary;
  /** The UTF-8 bytes of each counter's string; never changed once stored, so merges may share them. */
  private byte[][] values;
  private long chargedValueBytes;
  /** The dictionary whose entries' hashes {@link #entryHashes} holds. */
  private VarCharColumn hashedDictionary;
  private long[] entryHashes;

  private StringSpaceSaving(EngineMemory memory, SpaceSaving summary) {
    this.memory = memory;
    this.summary = summary;
    this.values = new byte[summary.counters()][];
  }

  /**
   * An empty summary of {@code counters} counters.
   *
   * @throws BudgetExceededException if the budget cannot hold the counters
   */
  public static StringSpaceSaving create(EngineMemory memory, int counters) {
    return new StringSpaceSaving(memory, SpaceSaving.create(memory, counters));
  }

  /**
   * An empty summary laid out as {@code sizing} says ({@link SpaceSaving#create(EngineMemory,
   * SummarySizing)}).
   *
   * @throws BudgetExceededException if the budget cannot hold the counters
   */
  public static StringSpaceSaving create(EngineMemory memory, SummarySizing sizing) {
    return new StringSpaceSaving(memory, SpaceSaving.create(memory, sizing));
  }

  /** The 64-bit hash a string is counted under, from its UTF-8 bytes {@code [offset, offset + length)}. */
  public static long hash(MemorySegment bytes, long offset, int length) {
    long hash = length;
    int i = 0;
    for (; i + Long.BYTES <= length; i += Long.BYTES) {
      hash = Hashing.combine(hash, bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, offset + i));
    }
    long tail = 0;
    for (int shift = 0; i < length; i++, shift += 8) {
      tail |= (bytes.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFFL) << shift;
    }
    return Hashing.combine(hash, tail);
  }

  /** Counts one occurrence of {@code value}. */
  public void offer(String value) {
    if (value == null) {
      throw new IllegalArgumentException("a null string has no count; skip nulls before offering");
    }
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    MemorySegment bytes = MemorySegment.ofArray(utf8);
    offerHashed(hash(bytes, 0, utf8.length), bytes, 0, utf8.length);
  }

  /** Counts one occurrence of the string of UTF-8 bytes {@code [offset, offset + length)} of {@code bytes}. */
  public void offer(MemorySegment bytes, long offset, int length) {
    offerHashed(hash(bytes, offset, length), bytes, offset, length);
  }

  /**
   * Counts every non-null value of a string column: a plain one by its bytes, a dictionary-encoded
   * one by code, each dictionary entry hashed once.
   */
  public void offerAll(Column column) {
    switch (column) {
      case VarCharColumn strings -> {
        MemorySegment bytes = strings.bytes();
        for (int row = 0; row < strings.length(); row++) {
          if (!strings.isNull(row)) {
            offer(bytes, strings.offset(row), strings.byteLength(row));
          }
        }
      }
      case DictionaryColumn codes -> {
        VarCharColumn dictionary = codes.dictionary();
        long[] hashes = entryHashes(dictionary);
        MemorySegment bytes = dictionary.bytes();
        for (int row = 0; row < codes.length(); row++) {
          if (!codes.isNull(row)) {
            int code = codes.code(row);
            offerHashed(hashes[code], bytes, dictionary.offset(code), dictionary.byteLength(code));
          }
        }
      }
      default -> throw new IllegalArgumentException("column '" + column.name() + "' of type " + column.type()
          + " is not a string column");
    }
  }

  /**
   * The hashes of {@code dictionary}'s entries, by code, computed once while the same dictionary
   * keeps coming (a file's batches share one); the array is charged to the memory until the next
   * dictionary replaces it or the summary is closed.
   *
   * @throws BudgetExceededException if the budget cannot hold 8 bytes per entry
   */
  public long[] entryHashes(VarCharColumn dictionary) {
    if (values == null) {
      throw new IllegalStateException("this Space-Saving summary is closed");
    }
    if (dictionary != hashedDictionary) {
      long charge = (long) Long.BYTES * dictionary.length();
      try {
        memory.reserveHeap(charge);
      } catch (BudgetExceededException e) {
        throw e.in(SpaceSaving.OPERATOR, "hash a dictionary's entries", "give the query more memory");
      }
      dropEntryHashes();
      long[] hashes = new long[dictionary.length()];
      MemorySegment bytes = dictionary.bytes();
      for (int code = 0; code < hashes.length; code++) {
        hashes[code] = hash(bytes, dictionary.offset(code), dictionary.byteLength(code));
      }
      entryHashes = hashes;
      hashedDictionary = dictionary;
    }
    return entryHashes;
  }

  /**
   * Counts one occurrence of the string whose {@link #hash} is {@code hash}, its bytes
   * {@code [offset, offset + length)} of {@code bytes} read only if it becomes monitored: the
   * path for a dictionary entry whose hash the caller has.
   */
  public void offerHashed(long hash, MemorySegment bytes, long offset, int length) {
    if (summary.offerIfMonitored(hash) >= 0) {
      return;
    }
    try {
      memory.reserveHeap(length); // before the string takes a counter: a refusal changes nothing
    } catch (BudgetExceededException e) {
      throw e.in(SpaceSaving.OPERATOR, "keep a monitored string", "give the query more memory");
    }
    int counter = summary.offerUnmonitored(hash);
    byte[] old = values[counter];
    if (old != null) {
      memory.releaseHeap(old.length);
    }
    chargedValueBytes += length - (old == null ? 0 : old.length);
    byte[] copy = new byte[length];
    MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, offset, copy, 0, length);
    values[counter] = copy;
  }

  /** The long summary over the hashes, for its answers and bounds. */
  public SpaceSaving summary() {
    return summary;
  }

  /** The UTF-8 bytes of the monitored string counted under {@code key}, or null when none is monitored. */
  public byte[] utf8(long key) {
    int counter = summary.counterOf(key);
    return counter < 0 ? null : values[counter];
  }

  /** The monitored string counted under {@code key}, or null when none is monitored. */
  public String value(long key) {
    byte[] utf8 = utf8(key);
    return utf8 == null ? null : new String(utf8, StandardCharsets.UTF_8);
  }

  /**
   * Adds {@code other}'s stream to this one's, as {@link SpaceSaving#merge} does, with the strings.
   * The strings that may come over are charged first, so a refusal leaves both summaries as they were.
   *
   * @throws BudgetExceededException if the budget cannot hold {@code other}'s strings beside this one's
   */
  public void merge(StringSpaceSaving other) {
    if (other == this) {
      throw new IllegalArgumentException("cannot merge a summary into itself");
    }
    if (values == null || other.values == null) {
      throw new IllegalStateException("this Space-Saving summary is closed");
    }
    try {
      memory.reserveHeap(other.chargedValueBytes);
    } catch (BudgetExceededException e) {
      throw e.in(SpaceSaving.OPERATOR, "merge", "give the query more memory");
    }
    chargedValueBytes += other.chargedValueBytes;
    int counters = summary.counters();
    int[] fromThis = new int[counters];
    int[] fromOther = new int[counters];
    try {
      summary.merge(other.summary, fromThis, fromOther);
    } catch (RuntimeException e) {
      memory.releaseHeap(other.chargedValueBytes);
      chargedValueBytes -= other.chargedValueBytes;
      throw e;
    }
    byte[][] merged = new byte[counters][];
    long bytes = 0;
    for (int c = 0; c < summary.monitored(); c++) {
      merged[c] = fromThis[c] >= 0 ? values[fromThis[c]] : other.values[fromOther[c]];
      bytes += merged[c].length;
    }
    memory.releaseHeap(chargedValueBytes - bytes); // the merged strings are a subset of both summaries'
    chargedValueBytes = bytes;
    values = merged;
  }

  private void dropEntryHashes() {
    if (entryHashes != null) {
      memory.releaseHeap((long) Long.BYTES * entryHashes.length);
      entryHashes = null;
      hashedDictionary = null;
    }
  }

  /** Releases the summary, the strings' bytes and the dictionary's hashes. Idempotent. */
  @Override
  public void close() {
    if (values != null) {
      dropEntryHashes();
      memory.releaseHeap(chargedValueBytes);
      chargedValueBytes = 0;
      values = null;
      summary.close();
    }
  }
}
