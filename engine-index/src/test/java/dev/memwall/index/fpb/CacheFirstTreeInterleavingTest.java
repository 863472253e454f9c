package dev.memwall.index.fpb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.index.KeyType;
import dev.memwall.index.RowIds;
import dev.memwall.index.SortedEntries;
import dev.memwall.index.disk.DiskTreeConfig;
import dev.memwall.index.disk.DiskTreeType;
import dev.memwall.index.disktrees.DiskIndexes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Deterministic interleavings of the cache-first tree's lock-free readers with its writer, through
 * the package-private {@link CacheFirstTree.Probe} pause points: the race windows that the
 * randomized {@link CacheFirstTreeConcurrencyTest} hits too rarely on two cores are opened on
 * purpose, and what the reader returns must be the answer of one published state.
 *
 * <ul>
 *   <li>A reader walking a run of equal keys from leaf page B into leaf page C is paused just
 *       before it enters C; the writer deletes the run's first entry (on B, which the reader has
 *       already read) and appends one (on C). The reader must return the run before both changes
 *       or after both, never B's old entries with C's new one. This needs the stamp coupling order
 *       (enter C, then re-validate B) and, when B is a committed page copied on write (its old
 *       bytes intact, its frame's stamp unchanged), the map check of the validation.
 *   <li>The same over a run spanning three leaf pages A, B, C: paused before C, the writer deletes
 *       on A (already left, so no longer coupled) and appends on C. Pairwise coupling alone misses
 *       A's change; the reader must re-validate every page it read before returning.
 *   <li>The writer is paused after each page it copies into a frame during a multi-page update (a
 *       leaf split into a free slot of its page that still holds the bytes of a leaf moved away by
 *       an earlier leaf page split, plus its parent's new entry); readers running in that pause
 *       must find every key exactly once. Installing such an update in place instead of on fresh
 *       pages published together lets them follow the parent's new entry into the old page.
 * </ul>
 */
@ExtendWith(LeakCheck.class)
class CacheFirstTreeInterleavingTest {
  @TempDir
  Path dir;

  /** 3-line nodes on 4 KiB pages: 21 node slots per page, 11 entries per leaf, 12 children. */
  private static DiskTreeConfig config() {
    return DiskIndexes.chooseConfig(KeyType.INT64, DiskTreeType.FPB_CACHE_FIRST, 4096, 240, 24).withNodeLines(3)
        .withPoolFrames(4096);
  }

  /** Three full leaf pages; entry {@code i} has row id {@code i}; {@code keyOf} gives the keys (ascending). */
  private CacheFirstTree bulkloadThreePages(EngineMemory memory, IntToLongFunction keyOf) {
    CacheFirstFormat format = new CacheFirstFormat(4096, 8, 3);
    int n = 3 * entriesPerLeafPage(format);
    long[] keys = new long[n];
    long[] rows = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = keyOf.applyAsLong(i);
      rows[i] = i;
    }
    return (CacheFirstTree) DiskIndexes.bulkload(dir.resolve("tree"), config(), memory, SortedEntries.of(keys, rows),
        1.0);
  }

  private static int entriesPerLeafPage(CacheFirstFormat format) {
    return format.slots() * format.leafCapacity();
  }

  /** Records the logical pages a reader enters. */
  private static final class EnterLog implements CacheFirstTree.Probe {
    final List<Integer> pages = new ArrayList<>();

    @Override
    public void beforeEnter(int logical) {
      pages.add(logical);
    }
  }

  /**
   * Pauses the reader before its {@code at}-th page entry (counted from 0) and runs {@code writer}
   * there, once.
   */
  private static final class PauseReader implements CacheFirstTree.Probe {
    private final int at;
    private final Runnable writer;
    private int entries;
    boolean ran;

    PauseReader(int at, Runnable writer) {
      this.at = at;
      this.writer = writer;
    }

    @Override
    public void beforeEnter(int logical) {
      if (entries++ == at && !ran) {
        ran = true;
        writer.run();
      }
    }
  }

  @ParameterizedTest(name = "pages committed before the writer runs: {0}")
  @ValueSource(booleans = {true, false})
  @Timeout(60)
  void readerWalkingIntoARewrittenPageNeverMixesTwoStates(boolean committed, EngineMemory memory) {
    // the reader has read the run's entries on the first page and is about to enter the second
    readerWalkingARunReturnsOneState(committed, memory, 2);
  }

  @ParameterizedTest(name = "pages committed before the writer runs: {0}")
  @ValueSource(booleans = {true, false})
  @Timeout(60)
  void readerWalkingARunOverThreePagesReturnsOneState(boolean committed, EngineMemory memory) {
    // the reader has read the run's entries on A and B (A re-validated when it entered B) and is
    // about to enter C; B does not change, so coupling B with C alone cannot see A's change
    readerWalkingARunReturnsOneState(committed, memory, 3);
  }

  /**
   * A run of equal keys from the end of the first of {@code pages} leaf pages to the start of the
   * last; the reader pauses before it enters the last page while the writer deletes the run's first
   * entry (first page) and adds a new last one (last page). The reader must return the run before or
   * after both changes, and must have retried.
   */
  private void readerWalkingARunReturnsOneState(boolean committed, EngineMemory memory, int pages) {
    CacheFirstFormat format = new CacheFirstFormat(4096, 8, 3);
    int perPage = entriesPerLeafPage(format);
    int runStart = perPage - 3;
    int runEnd = (pages - 1) * perPage + 3;
    long runKey = 10L * runStart;
    try (CacheFirstTree tree = bulkloadThreePages(memory, i -> i >= runStart && i < runEnd ? runKey : 10L * i)) {
      if (!committed) {
        // first changes copy the end pages to fresh pages; later single-page changes to them go in place
        assertTrue(tree.delete(10L * (runStart - 5), runStart - 5));
        assertTrue(tree.delete(10L * (runEnd + 2), runEnd + 2)); // also leaves room in the last page's first leaf
      }
      Set<Long> before = new TreeSet<>();
      for (long r = runStart; r < runEnd; r++) {
        before.add(r);
      }
      Set<Long> after = new TreeSet<>(before);
      after.remove((long) runStart);
      after.add(9999L);

      EnterLog log = new EnterLog();
      tree.probe(log);
      assertEquals(before, rowIds(tree, runKey));
      List<Integer> entered = log.pages;
      assertTrue(entered.size() >= pages, "the run spans " + pages + " leaf pages: entered " + entered);
      assertEquals(pages, new TreeSet<>(entered.subList(entered.size() - pages, entered.size())).size(),
          "entered " + entered);

      long retriesBefore = tree.optimisticRetries();
      PauseReader pause = new PauseReader(entered.size() - 1, () -> {
        assertTrue(tree.delete(runKey, runStart)); // first page: the run's first entry goes
        tree.insert(runKey, 9999); // last page: a new last entry
      });
      tree.probe(pause);
      Set<Long> seen = rowIds(tree, runKey);
      tree.probe(null);
      assertTrue(pause.ran, "the reader reached the last page");
      if (!seen.equals(before) && !seen.equals(after)) {
        Set<Long> extra = new TreeSet<>(seen);
        extra.removeAll(before);
        fail("the reader mixed two states (" + seen.size() + " row ids, beyond the old run: " + extra
            + ", old first entry " + (seen.contains((long) runStart) ? "kept" : "gone") + ")");
      }
      assertTrue(tree.optimisticRetries() > retriesBefore,
          "the first page changed after the reader read it: it must retry");
      assertEquals(after, rowIds(tree, runKey));
      tree.checkInvariants();
    }
  }

  private static Set<Long> rowIds(CacheFirstTree tree, long key) {
    RowIds out = new RowIds();
    int n = tree.search(key, out);
    Set<Long> set = new TreeSet<>();
    for (int i = 0; i < n; i++) {
      assertTrue(set.add(out.get(i)), "row id " + out.get(i) + " returned twice");
    }
    return set;
  }

  /**
   * Runs a reader over every key of the first leaf page at each page copy of the writer. A reader
   * that keeps retrying in the pause (allowed) is given until the update is installed.
   */
  private static final class CheckReadersAfterEachFrameWrite implements CacheFirstTree.Probe {
    private final CacheFirstTree tree;
    private final int keys;
    final List<CompletableFuture<List<String>>> checks = new ArrayList<>();

    CheckReadersAfterEachFrameWrite(CacheFirstTree tree, int keys) {
      this.tree = tree;
      this.keys = keys;
    }

    @Override
    public void afterFrameWrite() {
      CompletableFuture<List<String>> check = new CompletableFuture<>();
      Thread reader = new Thread(() -> {
        try {
          check.complete(readAll());
        } catch (Throwable e) {
          check.completeExceptionally(e);
        }
      });
      reader.start();
      checks.add(check);
      try {
        check.get(2, TimeUnit.SECONDS); // the writer waits: the reader sees the half-installed update
      } catch (TimeoutException e) {
        // still retrying: it must finish with right answers once the writer goes on
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }

    private List<String> readAll() {
      List<String> wrong = new ArrayList<>();
      RowIds out = new RowIds();
      for (int i = 0; i < keys; i++) {
        out.clear();
        int n = tree.search(10L * i, out);
        if (n != 1 || out.get(0) != i) {
          wrong.add("key " + 10L * i + ": " + out);
        }
      }
      return wrong;
    }
  }

  @Test
  @Timeout(60)
  void readersDuringAMultiPageUpdateSeeTheOldOrTheNewState(EngineMemory memory) throws Exception {
    CacheFirstFormat format = new CacheFirstFormat(4096, 8, 3);
    int perPage = entriesPerLeafPage(format);
    try (CacheFirstTree tree = bulkloadThreePages(memory, i -> 10L * i)) {
      // leaf 0 splits, its full page first: the second half of the page's leaves moves to a new
      // page, their slots stay behind free with the moved leaves' bytes; leaf 0's new half takes
      // the lowest of them
      tree.insert(5, 1_000_001);
      int pagesBefore = tree.treePages();
      // leaf 1 (keys 110 .. 210) splits into the next free slot, which still holds a moved leaf's
      // keys: the leaf page and its parent's page change together
      CheckReadersAfterEachFrameWrite probe = new CheckReadersAfterEachFrameWrite(tree, perPage / 2);
      tree.probe(probe);
      tree.insert(115, 1_000_002);
      tree.probe(null);
      assertEquals(pagesBefore, tree.treePages(), "the leaf split stayed within its page");
      assertTrue(probe.checks.size() >= 2, "a multi-page update: " + probe.checks.size() + " page copies");
      for (CompletableFuture<List<String>> check : probe.checks) {
        List<String> wrong = check.get(30, TimeUnit.SECONDS);
        assertTrue(wrong.isEmpty(), "a reader inside the update saw a torn tree: " + wrong);
      }
      tree.checkInvariants();
    }
  }
}
