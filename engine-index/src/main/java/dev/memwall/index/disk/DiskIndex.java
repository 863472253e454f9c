package dev.memwall.index.disk;

import dev.memwall.index.RowIds;
import dev.memwall.index.page.BufferPool;

/**
 * A durable B+-tree index over a page file: what {@link DiskBPlusTree} (disk-first fpB+-tree,
 * slotted pages, micro-indexing) and {@code fpb.CacheFirstTree} (cache-first fpB+-tree) share, so
 * tests and benchmarks run over every {@link DiskTreeType}. {@code disktrees.DiskIndexes}'s
 * {@code create}, {@code bulkload} and {@code open} pick the implementation from
 * {@link DiskTreeConfig#treeType()} (they live above this package, which names no fpB+-tree class).
 *
 * <p>Contract common to both (see the implementations for details): int32/int64 keys passed as
 * {@code long}, int64 row ids, duplicates kept in insertion order, lazy deletes; {@link #sync} and
 * {@link #close} commit, and a crash at any point reopens at the last commit; one writer thread
 * ({@link #insert}, {@link #delete}, {@link #sync}, {@link #close}, {@link #checkInvariants}) and
 * any number of concurrent readers ({@link #search}, {@link #searchFirst}, {@link #contains},
 * {@link #scan}). Keys outside the key type: {@link IllegalArgumentException}; a full file:
 * {@code PageFileFullException} before anything changes; a file of another tree type or key type:
 * {@code PageFileFormatException}, file untouched; a page failing its checksum:
 * {@code CorruptPageException} naming file and page.
 */
public interface DiskIndex extends AutoCloseable {
  /** First long of the commit metadata of every disk tree ("MWDISKTR"); then tree type ordinal, key bytes. */
  long FILE_MAGIC = 0x4D57_4449_534B_5452L;

  /** A range scan handing out batches in key order; one thread per scan. */
  interface Scan {
    /** Next row ids into {@code rowIds}; returns how many (0: the scan is over). */
    int next(long[] rowIds);

    /** Next keys and row ids ({@code keys} may be null); returns how many (0: the scan is over). */
    int next(long[] keys, long[] rowIds);
  }

  void insert(long key, long rowId);

  boolean delete(long key, long rowId);

  int search(long key, RowIds out);

  long searchFirst(long key, long absent);

  boolean contains(long key);

  /** The entries with {@code lo <= key <= hi} in key order (empty if lo > hi). */
  Scan scan(long lo, long hi);

  void sync();

  @Override
  void close();

  /** Closes without committing, as a crash would. */
  void closeWithoutSync();

  long size();

  int height();

  DiskTreeConfig config();

  int filePages();

  long optimisticRetries();

  BufferPool pool();

  void checkInvariants();
}
