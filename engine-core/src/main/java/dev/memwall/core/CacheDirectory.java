package dev.memwall.core;

import java.nio.file.Path;

/**
 * Where memwall keeps what it measures, extracts or generates once and reuses: the machine profile,
 * the async-profiler library, TPC-H data. {@code $XDG_CACHE_HOME/memwall} when that variable is set,
 * else {@code ~/.cache/memwall}. Stateless.
 */
public final class CacheDirectory {
  private CacheDirectory() {}

  /** The cache root (not created here). */
  public static Path root() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("memwall");
  }
}
