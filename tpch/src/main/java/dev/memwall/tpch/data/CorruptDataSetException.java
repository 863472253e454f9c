package dev.memwall.tpch.data;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A data file of a TPC-H data set whose bytes differ from the checksums its manifest keeps: flipped
 * on disk or in memory, truncated, or replaced. The message names the file, its table and the record
 * batch that differs (or that the batches are intact and the file's metadata is not), with both
 * checksums. Also a well-formed file whose layout is not its table's (columns, types, dictionaries,
 * or, in a set without checksums, the order of its first key column), named the same way.
 * {@link TpchDatabase#load} repairs such a file by generating it again.
 */
public final class CorruptDataSetException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final String table;
  private final int batch;

  /**
   * @param batch the first record batch whose checksum (or key order) differs, or -1 when it is not a
   *     batch (the dictionaries, the schema, a batch's header, the footer, or a file that cannot be read
   *     at all)
   * @param problem what differs, e.g. "record batch 3 has CRC32C 1a2b3c4d, its manifest says 5e6f7081"
   */
  public CorruptDataSetException(Path file, String table, int batch, String problem, Throwable cause) {
    super("corrupt TPC-H data file " + file + " (table " + table + "): " + problem, cause);
    this.file = file;
    this.table = table;
    this.batch = batch;
  }

  /** The file at fault. */
  public Path file() {
    return file;
  }

  /** Its table. */
  public String table() {
    return table;
  }

  /** The first record batch that differs, or -1 (see the constructor). */
  public int batch() {
    return batch;
  }
}
