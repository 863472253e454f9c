package dev.memwall.index.disk;

import dev.memwall.index.UpdatableIndex;
import dev.memwall.index.page.BufferPool;

/**
 * A durable B+-tree index over a page file: what {@link DiskBPlusTree} (disk-first fpB+-tree,
 * slotted pages, micro-indexing) and {@code fpb.CacheFirstTree} (cache-first fpB+-tree) share, so
 * tests and benchmarks run over every {@link DiskTreeType}: the lookups, scans and updates of an
 * {@link UpdatableIndex}, and committing, the file and the buffer pool.
 * {@code disktrees.DiskIndexes}'s {@code create}, {@code bulkload} and {@code open} pick the
 * implementation from {@link DiskTreeConfig#treeType()} (they live above this package, which names
 * no fpB+-tree class).
 *
 * <p>Contract common to both (see the implementations for details): int32/int64 keys passed as
 * {@code long}, int64 row ids, duplicates kept in insertion order, lazy deletes; {@link #sync} and
 * {@link #close} commit, and a crash at any point reopens at the last commit; one writer thread
 * ({@link #insert}, {@link #delete}, {@link #sync}, {@link #close}, {@link #checkInvariants}) and
 * any number of concurrent readers ({@link #search}, {@link #searchFirst}, {@link #contains},
 * {@link #lookupBatch}, {@link #scan}). Keys outside the key type: refused by the updates with
 * {@link IllegalArgumentException}, found nowhere by the lookups, and scan bounds are clamped to
 * the type; a full file: {@code PageFileFullException} before anything changes; a file of another
 * tree type or key type: {@code PageFileFormatException}, file untouched; a page failing its
 * checksum: {@code CorruptPageException} naming file and page.
 */
public interface DiskIndex extends UpdatableIndex {
  /** First long of the commit metadata of every disk tree ("MWDISKTR"); then tree type ordinal, key bytes. */
  long FILE_MAGIC = 0x4D57_4449_534B_5452L;

  /** Commits: everything changed so far survives a crash from now on. */
  void sync();

  /** Commits, then frees the buffer pool and closes the file; idempotent. */
  @Override
  void close();

  /** Closes without committing, as a crash would. */
  void closeWithoutSync();

  /** The configuration, with the in-page widths (or node width) the file uses. */
  DiskTreeConfig config();

  /** Pages of the file in use. */
  int filePages();

  /** Optimistic reads that failed validation and were retried, since the tree was opened. */
  long optimisticRetries();

  /** The tree's buffer pool over its file. */
  BufferPool pool();
}
