package dev.memwall.hw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AsyncProfilerLibraryTest {
  private static final ClassLoader LOADER = AsyncProfilerLibraryTest.class.getClassLoader();
  private static final FileTime LONG_AGO = FileTime.fromMillis(1_000_000_000_000L);

  private static byte[] bundled(String platform) throws IOException {
    try (InputStream in = LOADER.getResourceAsStream(platform + "/libasyncProfiler.so")) {
      return in.readAllBytes();
    }
  }

  @Test
  void mapsJvmPlatformNamesToTheJarsDirectories() {
    assertEquals("linux-x64", AsyncProfilerLibrary.platform("Linux", "amd64"));
    assertEquals("linux-x64", AsyncProfilerLibrary.platform("Linux", "x86_64"));
    assertEquals("linux-arm64", AsyncProfilerLibrary.platform("Linux", "aarch64"));
    assertEquals("macos", AsyncProfilerLibrary.platform("Mac OS X", "aarch64"));
    assertEquals("macos", AsyncProfilerLibrary.platform("Mac OS X", "x86_64"));
  }

  @Test
  void unsupportedPlatformsGetAMessageNamingThem() {
    var e = assertThrows(UnsupportedOperationException.class,
        () -> AsyncProfilerLibrary.platform("Windows 11", "amd64"));
    assertTrue(e.getMessage().contains("Windows 11 amd64"), e.getMessage());
    assertTrue(e.getMessage().contains("Linux x86-64"), e.getMessage());
    assertThrows(UnsupportedOperationException.class, () -> AsyncProfilerLibrary.platform("Linux", "riscv64"));
  }

  @Test
  void extractsAVersionedCopyOfThePlatformsLibrary(@TempDir Path dir) throws IOException {
    Path cache = dir.resolve("cache/memwall");
    Path library = AsyncProfilerLibrary.extractTo(cache, "linux-arm64", LOADER);
    assertEquals(cache.resolve("libasyncProfiler-4.6-linux-arm64.so").toAbsolutePath(), library);
    assertArrayEquals(bundled("linux-arm64"), Files.readAllBytes(library));
    // ELF magic: a real shared object, not a placeholder
    assertArrayEquals(new byte[] {0x7f, 'E', 'L', 'F'}, Arrays.copyOf(Files.readAllBytes(library), 4));
    try (var files = Files.list(cache)) {
      assertEquals(1, files.count(), "no temporary file is left behind");
    }
  }

  @Test
  void reusesAnIdenticalCopyWithoutRewritingIt(@TempDir Path dir) throws IOException {
    Path library = AsyncProfilerLibrary.extractTo(dir, "linux-x64", LOADER);
    Files.setLastModifiedTime(library, LONG_AGO);
    assertEquals(library, AsyncProfilerLibrary.extractTo(dir, "linux-x64", LOADER));
    assertEquals(LONG_AGO, Files.getLastModifiedTime(library));
  }

  @Test
  void replacesACopyWithTheRightSizeButOtherBytes(@TempDir Path dir) throws IOException {
    Path library = AsyncProfilerLibrary.extractTo(dir, "linux-x64", LOADER);
    byte[] corrupt = Files.readAllBytes(library);
    corrupt[corrupt.length / 2] ^= 0x5A;
    Files.write(library, corrupt);
    AsyncProfilerLibrary.extractTo(dir, "linux-x64", LOADER);
    assertArrayEquals(bundled("linux-x64"), Files.readAllBytes(library));
  }

  @Test
  void replacesATruncatedCopy(@TempDir Path dir) throws IOException {
    Path library = AsyncProfilerLibrary.extractTo(dir, "linux-x64", LOADER);
    Files.write(library, Arrays.copyOf(bundled("linux-x64"), 1000));
    AsyncProfilerLibrary.extractTo(dir, "linux-x64", LOADER);
    assertArrayEquals(bundled("linux-x64"), Files.readAllBytes(library));
  }

  @Test
  void aCacheDirectoryThatIsAFileIsReportedByName(@TempDir Path dir) throws IOException {
    Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
    var e = assertThrows(IOException.class,
        () -> AsyncProfilerLibrary.extractTo(notADirectory.resolve("memwall"), "linux-x64", LOADER));
    assertTrue(e.getMessage().contains(notADirectory.resolve("memwall").toString()), e.getMessage());
  }

  @Test
  void extractsForThisMachineWhenItIsSupported(@TempDir Path dir) throws IOException {
    String os = System.getProperty("os.name");
    String arch = System.getProperty("os.arch");
    String platform;
    try {
      platform = AsyncProfilerLibrary.platform(os, arch);
    } catch (UnsupportedOperationException e) {
      assertThrows(UnsupportedOperationException.class, () -> AsyncProfilerLibrary.extractTo(dir));
      return;
    }
    Path library = AsyncProfilerLibrary.extractTo(dir);
    assertTrue(library.getFileName().toString().endsWith("-" + platform + ".so"), library.toString());
    assertArrayEquals(bundled(platform), Files.readAllBytes(library));
  }

}
