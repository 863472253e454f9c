package dev.memwall.index.disktrees;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.index.KeyType;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.disk.DiskBPlusTree;
import dev.memwall.index.disk.DiskIndex;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.disk.InPageWidths;
import dev.memwall.index.disk.DiskTreeType;
import dev.memwall.index.fpb.CacheFirstFormat;
import dev.memwall.index.fpb.CacheFirstTree;
import dev.memwall.index.micro.MicroIndexFormat;
import java.nio.file.Path;

/**
 * The factories over every disk tree: {@link #create}, {@link #bulkload} and {@link #open} pick the
 * implementation of a {@link DiskIndex} from {@link DiskTreeConfig#treeType()} ({@link CacheFirstTree}
 * for {@link DiskTreeType#FPB_CACHE_FIRST}, {@link DiskBPlusTree} for the other tree types), and
 * {@link #configFromProfile} and {@link #chooseConfig} choose a configuration's in-page widths with
 * goal G for all tree types at once.
 *
 * <p>Contract: each factory behaves exactly as the chosen implementation's factory of the same name
 * (see {@link DiskIndex} for what both share: the file is committed on return, a file of another
 * tree type or key type gives {@code PageFileFormatException} and is left untouched, a full file
 * {@code PageFileFullException}, a corrupt page {@code CorruptPageException}); the returned index is
 * owned by the caller, who closes it. The configuration choosers are pure functions of their
 * arguments. Stateless and thread-safe.
 */
public final class DiskIndexes {
  private DiskIndexes() {}

  /** A new file at {@code path} holding an empty tree of {@code config}'s tree type (committed). */
  public static DiskIndex create(Path path, DiskTreeConfig config, EngineMemory memory) {
    return config.treeType() == DiskTreeType.FPB_CACHE_FIRST ? CacheFirstTree.create(path, config, memory)
        : DiskBPlusTree.create(path, config, memory);
  }

  /**
   * Bulkloads a new file at {@code path} from sorted entries, {@code fill} in (0, 1], and commits;
   * unsorted entries or a fill outside (0, 1] give {@link IllegalArgumentException} before the file
   * is created.
   */
  public static DiskIndex bulkload(Path path, DiskTreeConfig config, EngineMemory memory, SortedEntries entries,
      double fill) {
    return config.treeType() == DiskTreeType.FPB_CACHE_FIRST
        ? CacheFirstTree.bulkload(path, config, memory, entries, fill)
        : DiskBPlusTree.bulkload(path, config, memory, entries, fill);
  }

  /** Opens the committed tree in {@code path}, which must be of {@code config}'s tree type and key type. */
  public static DiskIndex open(Path path, DiskTreeConfig config, EngineMemory memory) {
    return config.treeType() == DiskTreeType.FPB_CACHE_FIRST ? CacheFirstTree.open(path, config, memory)
        : DiskBPlusTree.open(path, config, memory);
  }

  /**
   * The configuration whose widths goal G picks for this machine's T1 and Tnext
   * ({@link MachineProfile#missLatencyNanos()}, {@link MachineProfile#pipelinedMissNanos()}), as
   * {@link #chooseConfig}.
   */
  public static DiskTreeConfig configFromProfile(MachineProfile profile, KeyType keyType, DiskTreeType treeType,
      int pageBytes) {
    return chooseConfig(keyType, treeType, pageBytes, profile.missLatencyNanos(), profile.pipelinedMissNanos());
  }

  /**
   * The configuration of {@code treeType} whose in-page widths goal G picks for T1 and Tnext (any one
   * unit), for every tree type at once: the disk-first widths w and x ({@link InPageWidths#choose}),
   * the micro-indexing sub-array size ({@link MicroIndexFormat#chooseSubarrayLines}) and the
   * cache-first node width ({@link CacheFirstFormat#choose}), with 8-byte row ids and the default
   * pool frames, page limit and scan prefetch distance of {@link DiskTreeConfig}.
   */
  public static DiskTreeConfig chooseConfig(KeyType keyType, DiskTreeType treeType, int pageBytes, double t1,
      double tnext) {
    InPageWidths widths = InPageWidths.choose(pageBytes, keyType.bytes(), Long.BYTES, t1, tnext);
    int sub = MicroIndexFormat.chooseSubarrayLines(pageBytes, keyType.bytes(), Long.BYTES, t1, tnext);
    int node = CacheFirstFormat.choose(pageBytes, keyType.bytes(), Long.BYTES, t1, tnext).nodeLines();
    return new DiskTreeConfig(keyType, treeType, pageBytes, widths.nonLeafLines(), widths.leafLines(), sub,
        DiskTreeConfig.DEFAULT_POOL_FRAMES, DiskTreeConfig.DEFAULT_MAX_PAGES,
        DiskTreeConfig.DEFAULT_SCAN_PREFETCH_PAGES, node);
  }
}
