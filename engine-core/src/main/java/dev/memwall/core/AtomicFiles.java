package dev.memwall.core;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Small files written whole or not at all: the bytes go to {@code <file>.tmp} beside the target,
 * which is then renamed over the target atomically, so a reader sees the old file or the new one,
 * never part of one. Stateless and thread-safe; two writers of one target must not run at once.
 */
public final class AtomicFiles {
  private AtomicFiles() {}

  /**
   * Writes {@code bytes} as {@code file}, replacing any. On failure the temporary file is removed and
   * {@code file} is as it was; an I/O failure is a {@link FileSystemException} naming the file it
   * happened on and the system's reason (a write's own failure, such as "No space left on device",
   * names none).
   */
  public static void write(Path file, byte[] bytes) throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      try {
        Files.write(temporary, bytes);
      } catch (FileSystemException e) {
        throw e;
      } catch (IOException e) {
        FileSystemException named = new FileSystemException(temporary.toString(), null, e.getMessage());
        named.initCause(e);
        throw named;
      }
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      Files.deleteIfExists(temporary);
      throw e;
    }
  }
}
