package dev.memwall.tpch.data;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.ipc.CorruptArrowFileException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens the data files of a TPC-H set so that no corrupt byte reaches a query: a file whose manifest
 * keeps {@linkplain FileChecksums checksums} is checked against them the first time this process
 * opens it (one CRC32C pass over the file) and then mapped without the structural pass (its
 * structure was validated when it was written, and its bytes are the ones written); a file without
 * checksums (a set written before memwall kept them) is mapped with the structural validation of
 * {@link ArrowFiles#map}, and its layout is checked against its table's: columns, types, dictionaries
 * and the order of its first key column ({@link LayoutCheck}). Every file's columns and dictionaries
 * are checked, which costs nothing next to opening it.
 *
 * <p>"First time": a file is checked again when its size, modification time or inode has changed
 * since this process checked it (rewriting or patching a file changes its modification time).
 *
 * <p>Thread safety: safe; two threads opening one unchecked file at once may both check it.
 */
final class DataSetVerification {
  /** Files checked in this process: real path to the identity they had then. */
  private static final Map<Path, String> VERIFIED = new ConcurrentHashMap<>();

  private DataSetVerification() {}

  /**
   * Maps {@code file} of {@code table} after checking it against {@code manifest}.
   *
   * @param keys the key order of {@code table}, carried from its previous file; used only for a file
   *     without checksums
   * @throws CorruptDataSetException when its checksums differ (naming the batch), or when its columns,
   *     dictionaries or, without checksums, its key order are not its table's
   * @throws CorruptArrowFileException when it has no checksums and its structure is invalid
   */
  static Table map(Path file, String table, TpchManifest manifest, EngineMemory memory, LayoutCheck.KeyOrder keys)
      throws IOException {
    var expected = manifest.checksums(file);
    Table mapped;
    if (expected.isEmpty()) {
      mapped = ArrowFiles.map(file, memory);
    } else {
      Path real = file.toRealPath();
      String identity = identity(real);
      if (!identity.equals(VERIFIED.get(real))) {
        verify(file, table, expected.get(), memory);
        VERIFIED.put(real, identity);
      }
      mapped = ArrowFiles.mapTrusted(file, memory);
    }
    try {
      LayoutCheck.checkSchema(file, table, mapped);
      if (expected.isEmpty()) {
        keys.check(file, mapped);
      }
      return mapped;
    } catch (CorruptDataSetException | RuntimeException e) {
      mapped.close();
      throw e;
    }
  }

  /** Checks the whole file's sum; when it differs, finds what differs to name it. */
  static void verify(Path file, String table, FileChecksums expected, EngineMemory memory) throws IOException {
    long sum = FileChecksums.ofFile(file);
    if (sum == expected.file()) {
      return;
    }
    String mismatch = "CRC32C " + hex(sum) + ", its manifest says " + hex(expected.file());
    long[] batches;
    long dictionaries;
    try (Table mapped = ArrowFiles.mapTrusted(file, memory)) {
      batches = FileChecksums.ofBatches(mapped);
      dictionaries = FileChecksums.ofDictionaries(mapped);
    } catch (CorruptArrowFileException e) {
      throw new CorruptDataSetException(file, table, -1, mismatch + "; it cannot be read as Arrow: " + e.getMessage(), e);
    }
    long[] wanted = expected.batches();
    for (int batch = 0; batch < Math.min(batches.length, wanted.length); batch++) {
      if (batches[batch] != wanted[batch]) {
        throw new CorruptDataSetException(file, table, batch, "record batch " + batch + " of " + wanted.length
            + " has CRC32C " + hex(batches[batch]) + ", its manifest says " + hex(wanted[batch]), null);
      }
    }
    if (batches.length != wanted.length) {
      throw new CorruptDataSetException(file, table, -1, "it has " + batches.length + " record batches, its manifest"
          + " says " + wanted.length + " (" + mismatch + ")", null);
    }
    if (dictionaries != expected.dictionaries()) {
      throw new CorruptDataSetException(file, table, -1, "its dictionaries have CRC32C " + hex(dictionaries)
          + ", its manifest says " + hex(expected.dictionaries()), null);
    }
    throw new CorruptDataSetException(file, table, -1, "its record batches and dictionaries are intact but its "
        + "metadata (schema, batch headers or footer) is not: " + mismatch, null);
  }

  /** Forgets which files were checked, so that the next open checks them again (tests and {@code --check}). */
  static void forget() {
    VERIFIED.clear();
  }

  private static String identity(Path file) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
    return attributes.size() + "@" + attributes.lastModifiedTime().toInstant() + "#" + attributes.fileKey();
  }

  private static String hex(long crc) {
    return HexFormat.of().toHexDigits((int) crc);
  }
}
