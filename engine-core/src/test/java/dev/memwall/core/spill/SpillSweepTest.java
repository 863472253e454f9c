package dev.memwall.core.spill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep within one process: what a dead owner can leave (a directory with its lock file, a
 * directory whose lock file is gone, a lone lock file) is removed; anything not named like an owner
 * directory is left alone; this process's own owner is never touched, and the last close leaves the
 * root as it found it. Across processes: {@link dev.memwall.core.plan.SpillCrashTest}.
 */
class SpillSweepTest {
  @TempDir
  Path root;

  @Test
  void deadOwnersLeftoversAreSweptAndForeignFilesKept() throws IOException {
    Path dead = Files.createDirectories(root.resolve("memwall-spills-1-dead/memwall-spill-1"));
    Files.write(dead.resolve("run-0.spill"), new byte[1000]);
    Files.createFile(root.resolve("memwall-spills-1-dead.lock")); // unlocked: its owner is gone
    Files.createDirectories(root.resolve("memwall-spills-2-nolock/memwall-spill-2"));
    Files.createFile(root.resolve("memwall-spills-3-lone.lock"));
    Path foreign = Files.createDirectories(root.resolve("memwall-spill-legacy"));
    Path other = Files.writeString(root.resolve("notes.txt"), "mine");
    try (SpillDirectory spill = SpillDirectory.create(root, Long.MAX_VALUE, "test")) {
      assertEquals(List.of(foreign, spill.path().getParent(), other), listing(root).stream()
          .filter(p -> !p.toString().endsWith(".lock")).toList());
      assertEquals(spill.path().getParent() + SpillOwner.LOCK_SUFFIX, listing(root).stream()
          .filter(p -> p.toString().endsWith(".lock")).findFirst().orElseThrow().toString());
    }
    assertEquals(List.of(foreign, other), listing(root));
    assertEquals(0, SpillOwner.held());
  }

  @Test
  void theProcesssOwnOwnerIsSharedAndNeverSwept() throws IOException {
    try (SpillDirectory first = SpillDirectory.create(root, Long.MAX_VALUE, "first")) {
      first.newFile("a");
      Path owner = first.path().getParent();
      assertEquals(0, SpillSweep.sweep(root.toRealPath(), Set.of()), "a held lock marks a live owner");
      try (SpillDirectory second = SpillDirectory.create(root.resolve("."), Long.MAX_VALUE, "second")) {
        assertEquals(owner, second.path().getParent(), "one owner per real root and process");
        assertEquals(1, SpillOwner.held());
      }
      assertTrue(Files.isDirectory(first.path()), "the second close must keep the first's files");
      assertEquals(1, first.liveFiles());
    }
    assertEquals(List.of(), listing(root));
    assertFalse(SpillOwner.held() > 0);
  }

  private static List<Path> listing(Path root) throws IOException {
    try (Stream<Path> list = Files.list(root)) {
      return list.sorted().toList();
    }
  }
}
