package dev.memwall.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CacheDirectoryTest {
  @Test
  void followsXdgWhenSetAndNotBlank() {
    assertEquals(Path.of("/x/cache/memwall"), CacheDirectory.root(Map.of("XDG_CACHE_HOME", "/x/cache"), "/home/u"));
    assertEquals(Path.of("/home/u/.cache/memwall"), CacheDirectory.root(Map.of(), "/home/u"));
    assertEquals(Path.of("/home/u/.cache/memwall"), CacheDirectory.root(Map.of("XDG_CACHE_HOME", " "), "/home/u"));
  }
}
