package dev.memwall.hw;

import dev.memwall.core.CacheDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Properties;

/**
 * The native library of async-profiler ({@code libasyncProfiler.so}), which the Maven artifact
 * {@code tools.profiler:async-profiler} bundles per platform ({@code linux-x64/},
 * {@code linux-arm64/}, {@code macos/}) inside its jar, where no process can load it. This class
 * extracts the current platform's copy once into memwall's cache directory and returns its path,
 * for example for JMH's {@code -prof async:libPath=...}.
 *
 * <p>The extracted file is named after the async-profiler version and the platform
 * ({@code libasyncProfiler-4.6-linux-x64.so}); it is reused while its size and SHA-256 equal the
 * bundled library's and rewritten otherwise (a truncated or foreign file is never loaded). Writing
 * goes to a temporary file in the same directory that is then atomically renamed over the target,
 * so concurrent extractions by several processes are safe and a reader never sees half a file.
 *
 * <p>Bad input: a platform without a bundled library gets an {@link UnsupportedOperationException}
 * naming the platform and the supported ones; a cache directory that cannot be created or written
 * gets an {@link IOException} naming the directory.
 *
 * <p>Thread safety: stateless; safe to call from any thread or process.
 */
public final class AsyncProfilerLibrary {
  /** The platform directories inside the async-profiler jar. */
  static final String LINUX_X64 = "linux-x64";
  static final String LINUX_ARM64 = "linux-arm64";
  static final String MACOS = "macos";
  private static final String LIBRARY = "libasyncProfiler.so";
  private static final String POM_PROPERTIES = "META-INF/maven/tools.profiler/async-profiler/pom.properties";

  private AsyncProfilerLibrary() {}

  /**
   * Extracts the library for this platform into {@link CacheDirectory#root()} (once) and returns
   * its absolute path.
   *
   * @throws UnsupportedOperationException if async-profiler bundles no library for this platform
   * @throws IOException if the cache directory cannot be created or written
   */
  public static Path extract() throws IOException {
    return extractTo(CacheDirectory.root());
  }

  /**
   * Extracts the library for this platform into {@code directory} (created if missing), unless an
   * identical copy is already there, and returns the file's absolute path.
   *
   * @throws UnsupportedOperationException if async-profiler bundles no library for this platform
   * @throws IOException if {@code directory} cannot be created or written
   */
  public static Path extractTo(Path directory) throws IOException {
    String platform = platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
    return extractTo(directory, platform, AsyncProfilerLibrary.class.getClassLoader());
  }

  /** The extraction itself, for a given platform and class loader (tests use other ones). */
  static Path extractTo(Path directory, String platform, ClassLoader loader) throws IOException {
    byte[] library = bundled(loader, platform + "/" + LIBRARY);
    String version = version(loader, library);
    Path target = directory.resolve("libasyncProfiler-" + version + "-" + platform + ".so").toAbsolutePath();
    if (Files.isRegularFile(target) && Files.size(target) == library.length
        && MessageDigest.isEqual(sha256(Files.readAllBytes(target)), sha256(library))) {
      return target;
    }
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new IOException("cannot create the cache directory " + directory + " for async-profiler's library: " + e, e);
    }
    Path temporary;
    try {
      temporary = Files.createTempFile(directory, ".libasyncProfiler-", ".tmp");
    } catch (IOException e) {
      throw new IOException("cannot write async-profiler's library into " + directory + ": " + e, e);
    }
    try {
      Files.write(temporary, library);
      try {
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temporary);
    }
    return target;
  }

  /**
   * The async-profiler platform directory for a JVM's {@code os.name} and {@code os.arch}.
   *
   * @throws UnsupportedOperationException naming the platform when async-profiler has no build
   */
  static String platform(String osName, String osArch) {
    String os = osName.toLowerCase(Locale.ROOT);
    String arch = osArch.toLowerCase(Locale.ROOT);
    if (os.contains("linux")) {
      switch (arch) {
        case "amd64", "x86_64" -> {
          return LINUX_X64;
        }
        case "aarch64", "arm64" -> {
          return LINUX_ARM64;
        }
        default -> { }
      }
    } else if (os.contains("mac") || os.contains("darwin")) {
      return MACOS; // one universal library for x86-64 and arm64
    }
    throw new UnsupportedOperationException("async-profiler has no library for " + osName + " " + osArch
        + "; it runs on Linux x86-64, Linux arm64 and macOS");
  }

  private static byte[] bundled(ClassLoader loader, String resource) throws IOException {
    try (InputStream in = loader.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException(resource + " is not on the class path: add the Maven artifact tools.profiler:async-profiler");
      }
      return in.readAllBytes();
    }
  }

  /** async-profiler's version from its jar's Maven metadata, else a prefix of the library's hash. */
  private static String version(ClassLoader loader, byte[] library) throws IOException {
    try (InputStream in = loader.getResourceAsStream(POM_PROPERTIES)) {
      if (in != null) {
        Properties properties = new Properties();
        properties.load(in);
        String version = properties.getProperty("version", "").strip();
        if (version.matches("[0-9A-Za-z.+-]+")) {
          return version;
        }
      }
    }
    return "sha256-" + HexFormat.of().formatHex(sha256(library), 0, 8);
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
