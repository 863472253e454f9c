package dev.memwall.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file written whole replaces the old one; a failed write names its file and leaves nothing behind. */
class AtomicFilesTest {
  @TempDir Path dir;

  @Test
  void replacesTheFileWholeAndLeavesNoTemporaryFile() throws IOException {
    Path file = dir.resolve("_SMALL");
    AtomicFiles.write(file, new byte[] {1, 2, 3});
    AtomicFiles.write(file, new byte[] {4});
    assertArrayEquals(new byte[] {4}, Files.readAllBytes(file));
    try (var files = Files.list(dir)) {
      assertEquals(List.of(file), files.toList());
    }
  }

  @Test
  void failuresNameTheFileAndLeaveTheTargetAsItWas() throws IOException {
    NoSuchFileException missing = assertThrows(NoSuchFileException.class,
        () -> AtomicFiles.write(dir.resolve("nowhere").resolve("_SMALL"), new byte[] {1}));
    assertTrue(missing.getMessage().contains("_SMALL.tmp"), missing.getMessage());

    Path occupied = dir.resolve("_TAKEN");
    Files.createDirectories(occupied.resolve("inside"));
    FileSystemException taken = assertThrows(FileSystemException.class,
        () -> AtomicFiles.write(occupied, new byte[] {1})); // the rename over a directory fails
    assertTrue(taken.getMessage().contains("_TAKEN"), taken.getMessage());
    assertTrue(Files.isDirectory(occupied.resolve("inside")), "the target is as it was");
    assertTrue(Files.notExists(dir.resolve("_TAKEN.tmp")), "no temporary file left");
  }
}
