package dev.memwall.core.spill;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.LinkOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Removes, from a spill root, the owner directories ({@link SpillOwner}) of processes that are gone,
 * with every spill file in them: a process killed in the middle of spilling leaves its files, and the
 * next process that spills under the same root sweeps them.
 *
 * <p>An owner directory is gone when its lock file can be locked (the OS dropped the dead owner's
 * lock) or when its lock file is missing (see {@link SpillOwner}'s creation order); a lock file that
 * another process holds marks a live owner, whose directory is left alone. Only names starting with
 * {@link SpillOwner#PREFIX} are touched: the root may be shared with anything else (the system's
 * temporary directory, for one).
 *
 * <p>Leftovers of versions before owner directories, which spilled straight under the root into
 * {@code memwall-spill-<digits>/} directories (and measured the disk with {@code memwall-rate-<digits>.spill}
 * probe files) with no lock, are swept by age instead ({@link #sweepLegacy}): once nothing in one has
 * been written, created, removed or read for {@link #LEGACY_AGE}. Only those exact names (what
 * {@link Files#createTempDirectory} and {@link Files#createTempFile} made of the old prefixes: the
 * prefix and an unsigned number) are touched, never a symbolic link.
 *
 * <p>Best effort and silent: a sweep never fails a spill; what it cannot remove (a file of another
 * user, a read-only root) stays for a later sweep. Thread safety: callers serialize sweeps of one
 * process (the owner registry's lock); sweeps of different processes may race, which the locks make
 * harmless (removing what is already removed is not an error).
 */
final class SpillSweep {
  /**
   * How long nothing in a legacy spill directory may have changed or been read before it is swept.
   * A legacy directory has no lock that tells a live owner from a dead one, so age is the only sign:
   * a still running process of an older version writes or removes spill files whenever its operator
   * spills a run or a partition, and reads them back while it merges or joins, so a directory that
   * none of this touched for a week belongs to a process that is gone. A week is far longer than any
   * query spills and still frees the disk; being wrong would delete a live query's files, being late
   * only keeps dead files a little longer, and no current version creates more of them.
   */
  static final Duration LEGACY_AGE = Duration.ofDays(7);

  /** A spill directory of a version before owner directories: {@code memwall-spill-<unsigned number>}. */
  private static final Pattern LEGACY_DIRECTORY = Pattern.compile("memwall-spill-[0-9]+");
  /** A disk-rate probe file of such a version: {@code memwall-rate-<unsigned number>.spill}. */
  private static final Pattern LEGACY_PROBE = Pattern.compile("memwall-rate-[0-9]+\\.spill");

  private SpillSweep() {}

  /**
   * Sweeps {@code root} of dead owners' directories, and of legacy leftovers older than
   * {@link #LEGACY_AGE} ({@link #sweepLegacy}).
   *
   * @param held lock files this process holds, never opened here (closing a channel to a file drops
   *     every lock this process holds on it)
   * @return how many owner directories (or lone lock files) and legacy leftovers were removed
   */
  static int sweep(Path root, Set<Path> held) {
    return sweepOwners(root, held) + sweepLegacy(root, Instant.now());
  }

  private static int sweepOwners(Path root, Set<Path> held) {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> listing = Files.newDirectoryStream(root, SpillOwner.PREFIX + "*")) {
      listing.forEach(entries::add);
    } catch (IOException e) {
      return 0;
    }
    int swept = 0;
    for (Path entry : entries) {
      String name = entry.getFileName().toString();
      if (name.endsWith(SpillOwner.LOCK_SUFFIX)) {
        if (!held.contains(entry) && sweepLocked(entry, root.resolve(name.substring(0,
            name.length() - SpillOwner.LOCK_SUFFIX.length())))) {
          swept++;
        }
      } else if (!Files.exists(root.resolve(name + SpillOwner.LOCK_SUFFIX))) {
        deleteTree(entry); // no lock file: its owner was swept or died before creating the directory
        swept++;
      }
    }
    return swept;
  }

  /** Takes the lock of {@code lockFile} if its owner is gone, and then removes the owner's directory and the lock file. */
  private static boolean sweepLocked(Path lockFile, Path directory) {
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        return false; // this process holds it (under another name of the root): alive
      }
      if (lock == null) {
        return false; // held by a live process
      }
      deleteTree(directory);
      Files.deleteIfExists(lockFile); // under the lock, so that an owner being born notices and picks another name
      return true;
    } catch (IOException e) {
      return false; // gone already, or not ours to open
    }
  }

  /**
   * Removes from {@code root} the legacy spill directories and probe files (see the class comment)
   * in which nothing was modified, created, removed or read within {@link #LEGACY_AGE} before
   * {@code now}: the newest of the directory's and its subdirectories' modification times (which
   * creating, renaming or removing an entry changes) and its files' modification and access times.
   * Directories' access times are not counted: listing a directory, as this sweep does, sets them.
   *
   * @return how many legacy directories and probe files were removed
   */
  static int sweepLegacy(Path root, Instant now) {
    List<Path> candidates = new ArrayList<>();
    try (DirectoryStream<Path> listing = Files.newDirectoryStream(root, "memwall-*")) {
      for (Path entry : listing) {
        String name = entry.getFileName().toString();
        if (LEGACY_DIRECTORY.matcher(name).matches() && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)
            || LEGACY_PROBE.matcher(name).matches() && Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)) {
          candidates.add(entry);
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0; // an unreadable root: nothing to sweep
    }
    int swept = 0;
    for (Path candidate : candidates) {
      try {
        if (lastTouched(candidate).plus(LEGACY_AGE).isBefore(now)) {
          deleteTree(candidate);
          swept++;
        }
      } catch (IOException e) {
        // something in it cannot be looked at or vanished meanwhile: kept, it may be in use
      }
    }
    return swept;
  }

  /** The newest modification of {@code path} or anything under it, and the newest read of a file in it. */
  private static Instant lastTouched(Path path) throws IOException {
    Instant[] newest = {Instant.MIN};
    Files.walkFileTree(path, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) {
        touched(attributes.lastModifiedTime());
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
        touched(attributes.lastModifiedTime());
        touched(attributes.lastAccessTime());
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        throw e; // what cannot be looked at may be in use: keep the whole directory
      }

      private void touched(FileTime time) {
        Instant instant = time.toInstant();
        if (instant.isAfter(newest[0])) {
          newest[0] = instant;
        }
      }
    });
    return newest[0];
  }

  /** Deletes {@code path} and everything under it, ignoring what vanishes meanwhile or cannot be deleted. */
  static void deleteTree(Path path) {
    try {
      Files.walkFileTree(path, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
          deleteQuietly(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path directory, IOException e) {
          deleteQuietly(directory);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException ignored) {
      // walkFileTree reports nothing else with this visitor
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (NoSuchFileException ignored) {
      // raced with another sweep
    } catch (IOException ignored) {
      // not ours to delete, or not empty because another process still writes: left for a later sweep
    }
  }
}
