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
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

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
 * <p>Best effort and silent: a sweep never fails a spill; what it cannot remove (a file of another
 * user, a read-only root) stays for a later sweep. Thread safety: callers serialize sweeps of one
 * process (the owner registry's lock); sweeps of different processes may race, which the locks make
 * harmless (removing what is already removed is not an error).
 */
final class SpillSweep {
  private SpillSweep() {}

  /**
   * Sweeps {@code root} of dead owners' directories.
   *
   * @param held lock files this process holds, never opened here (closing a channel to a file drops
   *     every lock this process holds on it)
   * @return how many owner directories (or lone lock files) were removed
   */
  static int sweep(Path root, Set<Path> held) {
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
