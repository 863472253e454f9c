package dev.memwall.core.spill;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * This process's own directory under a spill root, {@code memwall-spills-<pid>-<nonce>/}, in which
 * every {@link SpillDirectory} of the process under that root is created; beside it, the lock file
 * {@code memwall-spills-<pid>-<nonce>.lock}, on which the process holds an exclusive OS file lock
 * ({@link FileChannel#tryLock()}) for as long as the directory exists. The OS drops the lock when the
 * process dies however it dies (a {@code kill -9} included), so {@link SpillSweep} can tell the
 * directory of a dead process from a live one and remove it; a live owner's directory is never swept.
 *
 * <p>Lifetime: reference counted per spill root. The first {@link #acquire} under a root sweeps the
 * root of dead owners' directories (and of an older version's stale ones, see {@link SpillSweep}), then creates and locks this process's; the last {@link #release}
 * deletes the directory and the lock file and drops the lock. So the root holds nothing of this
 * process between spills, and no shutdown hook or background thread is needed.
 *
 * <p>Creation order, which makes the sweep safe against an owner being born: the lock file is created
 * and locked first, and only if it still exists once locked (a sweep that took the lock of a
 * just-created, not yet locked file deletes it) is the directory created. A directory whose lock
 * file is missing therefore has no live owner.
 *
 * <p>Thread safety: the registry is synchronized; the returned owner is shared by all threads of the
 * process spilling under the same root (the same real directory, however it was named).
 */
final class SpillOwner {
  /** The prefix of owner directories and their lock files. */
  static final String PREFIX = "memwall-spills-";
  /** The suffix of lock files. */
  static final String LOCK_SUFFIX = ".lock";

  /** Owners of this process by real spill root. */
  private static final Map<Path, SpillOwner> OWNERS = new HashMap<>();
  /** Lock files this process holds, which a sweep must never open (closing any channel to them would drop the lock). */
  private static final Set<Path> HELD = new HashSet<>();

  private final Path root;
  private final Path directory;
  private final Path lockFile;
  private final FileChannel channel;
  private final FileLock lock;
  private int users;

  private SpillOwner(Path root, Path directory, Path lockFile, FileChannel channel, FileLock lock) {
    this.root = root;
    this.directory = directory;
    this.lockFile = lockFile;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * This process's directory under {@code root} (created, with {@code root}, if missing), one more
   * user counted; sweeps the root of dead owners' directories when the process had none there.
   *
   * @throws IOException if the root or the directory cannot be created or locked
   */
  static SpillOwner acquire(Path root) throws IOException {
    Files.createDirectories(root);
    Path real = root.toRealPath();
    synchronized (OWNERS) {
      SpillOwner owner = OWNERS.get(real);
      if (owner == null) {
        SpillSweep.sweep(real, HELD);
        owner = create(real);
        OWNERS.put(real, owner);
        HELD.add(owner.lockFile);
      }
      owner.users++;
      return owner;
    }
  }

  private static SpillOwner create(Path root) throws IOException {
    String pid = Long.toString(ProcessHandle.current().pid());
    for (int attempt = 0; ; attempt++) {
      String name = PREFIX + pid + "-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
      Path lockFile = root.resolve(name + LOCK_SUFFIX);
      FileChannel channel;
      try {
        channel = FileChannel.open(lockFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (FileAlreadyExistsException e) {
        continue; // another nonce
      }
      FileLock lock = null;
      try {
        lock = channel.tryLock();
        if (lock != null && Files.exists(lockFile)) {
          Path directory = Files.createDirectory(root.resolve(name));
          return new SpillOwner(root, directory, lockFile, channel, lock);
        }
      } catch (IOException | RuntimeException e) {
        channel.close();
        Files.deleteIfExists(lockFile);
        throw e;
      }
      channel.close(); // a sweep took the fresh file's lock and deletes it: try another name
      if (attempt > 100) {
        throw new IOException("cannot lock a spill owner file under " + root + ": every fresh file was swept away");
      }
    }
  }

  /** The directory in which this process's spill directories under the root are created. */
  Path directory() {
    return directory;
  }

  /**
   * One user fewer; the last removes the directory (with anything left in it) and the lock file, then
   * drops the lock. Best effort: a file that cannot be removed is left for the next process's sweep.
   */
  void release() {
    synchronized (OWNERS) {
      if (--users > 0) {
        return;
      }
      OWNERS.remove(root);
      HELD.remove(lockFile);
      SpillSweep.deleteTree(directory);
      try {
        Files.deleteIfExists(lockFile);
      } catch (IOException ignored) {
        // left for a later sweep, which finds it unlocked
      }
      try {
        lock.release();
        channel.close();
      } catch (IOException | OverlappingFileLockException ignored) {
        // closing the channel drops the lock in any case
      }
    }
  }

  /** Owner directories this process holds now (for tests). */
  static int held() {
    synchronized (OWNERS) {
      return OWNERS.size();
    }
  }

  @Override
  public String toString() {
    return "SpillOwner[" + directory + ", " + users + " users]";
  }
}
