package dev.memwall.core;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where memwall keeps what it measures, extracts or generates once and reuses: the machine profile,
 * the async-profiler library, TPC-H data. {@code $XDG_CACHE_HOME/memwall} when that variable is set,
 * else {@code ~/.cache/memwall}. Stateless.
 */
public final class CacheDirectory {
  private CacheDirectory() {}

  /** The cache root (not created here). */
  public static Path root() {
    return root(System.getenv(), System.getProperty("user.home"));
  }

  static Path root(Map<String, String> environment, String home) {
    String xdg = environment.get("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isBlank()) {
      return Path.of(xdg, "memwall");
    }
    return Path.of(home, ".cache", "memwall");
  }
}
