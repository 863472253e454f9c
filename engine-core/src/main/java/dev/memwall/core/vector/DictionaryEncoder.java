package dev.memwall.core.vector;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * The dictionary of one string column a {@link TableBuilder} writes as codes: which string each
 * code stands for, and the code of each string appended.
 *
 * <p>The first source dictionary it is given (a {@link DictionaryColumn}'s values, at most
 * {@link #MAX_ENTRIES} entries) becomes its <em>base</em>: codes into the base are written
 * unchanged, so collecting the rows of a dictionary-encoded column copies their codes and nothing
 * else. Strings from any other source (another dictionary, plain bytes) are looked up by content
 * and appended after the base entries when new; the codes of another dictionary are translated
 * through a table built as its entries are met. Codes are dense from 0; an entry is never removed.
 *
 * <p>Ownership: the encoder only reads its sources; the base must stay readable until the last
 * call that reads values ({@link #toVector}, {@link #copyTo}, {@link #bytes}). {@link #toVector}
 * copies the values into a new vector, which the caller owns. Thread safety: none; one per column
 * per builder.
 */
public final class DictionaryEncoder {
  /**
   * The most entries a dictionary kept encoded has (a source dictionary larger than this is not
   * adopted as a base; builders decode a column whose dictionary would grow past it).
   */
  public static final int MAX_ENTRIES = 1 << 16;

  private VarCharColumn base;
  private FieldVector baseVector;
  private int baseSize;
  /** Values appended after the base entries, by code - baseSize; null for a null entry. */
  private final List<byte[]> added = new ArrayList<>();
  /**
   * Code by value (each value's bytes as a Latin-1 string, one char a byte: compact and exact),
   * built on first need over every entry so far.
   */
  private Map<String, Integer> index;
  private final Map<FieldVector, int[]> translations = new IdentityHashMap<>();
  private FieldVector lastSource;
  private int[] lastTranslation;

  /** The number of codes. */
  public int size() {
    return baseSize + added.size();
  }

  /**
   * Whether a row of {@code dictionary} can be encoded without growing past {@code limit} entries:
   * its codes pass unchanged (it is the base, or becomes it now, being small enough and the
   * encoder still empty), or all its entries would still fit.
   */
  public boolean accepts(VarCharColumn dictionary, int limit) {
    FieldVector vector = dictionary.arrow();
    if (vector == baseVector) {
      return true;
    }
    if (baseVector == null && added.isEmpty() && dictionary.length() <= Math.min(limit, MAX_ENTRIES)) {
      adopt(dictionary);
      return true;
    }
    return (long) size() + dictionary.length() <= limit;
  }

  /**
   * Whether every code of this encoder means the same in {@code other}: both have the same base and
   * this one nothing beyond it.
   */
  public boolean codesValidIn(DictionaryEncoder other) {
    return baseVector != null && baseVector == other.baseVector && added.isEmpty();
  }

  /**
   * Whether every code of {@code dictionary} is this encoder's code unchanged: it is the base, and
   * has no null entry (a row coding a null entry is written as a null row instead, so the tables
   * built never code a null entry).
   */
  public boolean copiesCodesOf(VarCharColumn dictionary) {
    return dictionary.arrow() == baseVector && !base.hasNulls();
  }

  private void adopt(VarCharColumn dictionary) {
    base = dictionary;
    baseVector = dictionary.arrow();
    baseSize = dictionary.length();
    if (index != null) {
      throw new AssertionError("an encoder with an index has entries");
    }
  }

  /**
   * The code of entry {@code code} of {@code dictionary}, or -1 when that entry is null (the row is
   * then written null). An empty encoder adopts a dictionary of at most {@link #MAX_ENTRIES} entries
   * as its base.
   */
  public int code(VarCharColumn dictionary, int code) {
    FieldVector vector = dictionary.arrow();
    if (vector == baseVector) {
      return base.hasNulls() && base.isNull(code) ? -1 : code;
    }
    if (baseVector == null && added.isEmpty() && dictionary.length() <= MAX_ENTRIES) {
      adopt(dictionary);
      return base.hasNulls() && base.isNull(code) ? -1 : code;
    }
    int[] translation = translationOf(dictionary);
    int translated = translation[code];
    if (translated == Integer.MIN_VALUE) {
      translated = dictionary.isNull(code) ? -1
          : code(dictionary.bytes(), dictionary.offset(code), dictionary.byteLength(code));
      translation[code] = translated;
    }
    return translated;
  }

  private int[] translationOf(VarCharColumn dictionary) {
    FieldVector vector = dictionary.arrow();
    if (vector != lastSource) {
      int[] translation = translations.get(vector);
      if (translation == null) {
        translation = new int[dictionary.length()];
        Arrays.fill(translation, Integer.MIN_VALUE);
        translations.put(vector, translation);
      }
      lastSource = vector;
      lastTranslation = translation;
    }
    return lastTranslation;
  }

  /** The code of the UTF-8 bytes {@code [offset, offset + length)} of {@code bytes}, appended when new. */
  public int code(MemorySegment bytes, long offset, int length) {
    byte[] utf8 = new byte[length];
    MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, offset, utf8, 0, length);
    return code(utf8);
  }

  /** The code of the UTF-8 bytes {@code utf8} (not copied: the caller must not change them), appended when new. */
  public int code(byte[] utf8) {
    Map<String, Integer> codes = index();
    String key = new String(utf8, StandardCharsets.ISO_8859_1);
    Integer known = codes.get(key);
    if (known != null) {
      return known;
    }
    int code = size();
    added.add(utf8);
    codes.put(key, code);
    return code;
  }

  private Map<String, Integer> index() {
    if (index == null) {
      index = new HashMap<>();
      for (int code = 0; code < size(); code++) {
        byte[] value = bytes(code);
        if (value != null) {
          index.putIfAbsent(new String(value, StandardCharsets.ISO_8859_1), code);
        }
      }
    }
    return index;
  }

  /** Whether entry {@code code} is null (only a base dictionary's entry can be). */
  public boolean isNull(int code) {
    return code < baseSize ? base.isNull(code) : added.get(code - baseSize) == null;
  }

  /** The bytes of entry {@code code}, or null for a null entry. */
  public byte[] bytes(int code) {
    if (code >= baseSize) {
      return added.get(code - baseSize);
    }
    if (base.isNull(code)) {
      return null;
    }
    byte[] utf8 = new byte[base.byteLength(code)];
    MemorySegment.copy(base.bytes(), ValueLayout.JAVA_BYTE, base.offset(code), utf8, 0, utf8.length);
    return utf8;
  }

  /** Writes entry {@code code}'s value (null for a null entry) at {@code index} of {@code target}. */
  public void copyTo(int code, VarCharVector target, int index) {
    if (code < baseSize) {
      if (base.isNull(code)) {
        target.setNull(index);
      } else {
        target.setSafe(index, base.offset(code), base.byteLength(code), base.arrow().getDataBuffer());
      }
    } else {
      byte[] value = added.get(code - baseSize);
      if (value == null) {
        target.setNull(index);
      } else {
        target.setSafe(index, value);
      }
    }
  }

  /**
   * The entries as a new vector named {@code name}, allocated from {@code allocator}; the caller
   * owns and closes it.
   */
  public VarCharVector toVector(String name, BufferAllocator allocator) {
    VarCharVector vector = new VarCharVector(name, allocator);
    try {
      int entries = size();
      long bytes = 0;
      for (int code = 0; code < baseSize; code++) {
        bytes += base.isNull(code) ? 0 : base.byteLength(code);
      }
      for (byte[] value : added) {
        bytes += value == null ? 0 : value.length;
      }
      vector.allocateNew(Math.max(1, bytes), Math.max(1, entries));
      for (int code = 0; code < entries; code++) {
        copyTo(code, vector, code);
      }
      vector.setValueCount(entries);
      return vector;
    } catch (RuntimeException | Error e) {
      vector.close();
      throw e;
    }
  }
}
