package dev.memwall.core.spill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
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
    age(Files.write(Files.createDirectories(root.resolve("memwall-spill-4242")).resolve("run-0.spill"), new byte[10]),
        stale());
    age(root.resolve("memwall-spill-4242"), stale());
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

  @Test
  void legacySpillLeftoversAreSweptOnlyOnceNothingInThemChangedForTheLegacyAge() throws IOException {
    Instant now = Instant.now();
    FileTime stale = stale();
    Path old = legacy("memwall-spill-1234567890123", stale, stale); // a killed old version's run files
    Path fresh = legacy("memwall-spill-42", FileTime.from(now), FileTime.from(now)); // an old version spilling now
    Path written = legacy("memwall-spill-7", stale, stale);
    age(Files.write(written.resolve("run-1.spill"), new byte[10]), FileTime.from(now.minus(Duration.ofDays(6))));
    age(written, stale); // one file written six days ago, the rest older
    Path read = legacy("memwall-spill-8", stale, FileTime.from(now.minus(Duration.ofHours(1)))); // being merged
    Path emptyOld = age(Files.createDirectory(root.resolve("memwall-spill-9")), stale);
    Path oldProbe = age(Files.write(root.resolve("memwall-rate-5.spill"), new byte[10]), stale);
    Path freshProbe = Files.write(root.resolve("memwall-rate-6.spill"), new byte[10]);
    Path test = legacy("memwall-spill-test123", stale, stale); // another program's name, or a test's spill root
    Path notOurs = legacy("spill-77", stale, stale);
    Path target = Files.createDirectories(root.resolve("elsewhere"));
    Path outside = legacy("elsewhere/memwall-spill-5", stale, stale);
    Path link = Files.createSymbolicLink(root.resolve("memwall-spill-6"), outside);
    Path plainFile = age(Files.write(root.resolve("memwall-spill-10"), new byte[10]), stale);

    assertEquals(3, SpillSweep.sweepLegacy(root, now));

    assertEquals(List.of(target, freshProbe, plainFile, fresh, link, written, read, test, notOurs), listing(root));
    assertTrue(Files.isDirectory(outside.resolve("sub")), "a link's target is never swept");
    assertFalse(Files.exists(old) || Files.exists(emptyOld) || Files.exists(oldProbe));
    assertEquals(0, SpillSweep.sweepLegacy(root, now), "nothing else is old enough");
    assertEquals(4, SpillSweep.sweepLegacy(root, now.plus(SpillSweep.LEGACY_AGE).plus(Duration.ofDays(1))),
        "a week later the fresh, written and read directories and the fresh probe are swept too");
    assertEquals(List.of(target, plainFile, link, test, notOurs), listing(root),
        "other names, a link and a plain file are never swept");
  }

  /** A legacy spill directory with a subdirectory and a run file: modified at {@code modified}, the file read at {@code read}. */
  private Path legacy(String name, FileTime modified, FileTime read) throws IOException {
    Path directory = Files.createDirectories(root.resolve(name));
    Path sub = Files.createDirectories(directory.resolve("sub"));
    Path file = Files.write(sub.resolve("run-0.spill"), new byte[100]);
    Files.getFileAttributeView(file, BasicFileAttributeView.class).setTimes(modified, read, null);
    age(sub, modified);
    return age(directory, modified);
  }

  private static FileTime stale() {
    return FileTime.from(Instant.now().minus(SpillSweep.LEGACY_AGE).minus(Duration.ofHours(1)));
  }

  private static Path age(Path path, FileTime time) throws IOException {
    Files.getFileAttributeView(path, BasicFileAttributeView.class).setTimes(time, time, null);
    return path;
  }

  private static List<Path> listing(Path root) throws IOException {
    try (Stream<Path> list = Files.list(root)) {
      return list.sorted().toList();
    }
  }
}
