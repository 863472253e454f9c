package dev.memwall.core.machine;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The data caches of CPU 0 as Linux publishes them under
 * {@code /sys/devices/system/cpu/cpu0/cache/index*}: the cross-check for the calibrator's
 * measured cache sizes.
 *
 * <p>Thread safety: stateless. Bad input: a missing directory (not Linux, a container hiding
 * sysfs) gives an empty list; an entry with unreadable or malformed files is skipped.
 */
public final class SysfsTopology {
  /** Where Linux describes CPU 0's caches. */
  public static final Path DEFAULT_ROOT = Path.of("/sys/devices/system/cpu/cpu0/cache");

  private SysfsTopology() {}

  /** The data and unified caches below {@code root}, by level. */
  public static List<CacheLevel> dataCaches(Path root) {
    List<CacheLevel> caches = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return caches;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(root, "index*")) {
      for (Path entry : entries) {
        try {
          CacheLevel cache = new CacheLevel(
              Integer.parseInt(read(entry, "level")),
              read(entry, "type"),
              parseSize(read(entry, "size")),
              Integer.parseInt(read(entry, "coherency_line_size")),
              Files.exists(entry.resolve("ways_of_associativity"))
                  ? Integer.parseInt(read(entry, "ways_of_associativity")) : 0);
          if (cache.holdsData()) {
            caches.add(cache);
          }
        } catch (IOException | RuntimeException malformed) {
          // skip this entry: the measured curve still stands on its own
        }
      }
    } catch (IOException e) {
      return List.of();
    }
    caches.sort(Comparator.comparingInt(CacheLevel::level));
    return List.copyOf(caches);
  }

  /** Parses sysfs sizes such as {@code 48K}, {@code 32768K}, {@code 2M} or plain bytes. */
  static long parseSize(String text) {
    String value = text.strip().toUpperCase(Locale.ROOT);
    long unit = switch (value.charAt(value.length() - 1)) {
      case 'K' -> 1L << 10;
      case 'M' -> 1L << 20;
      case 'G' -> 1L << 30;
      default -> 1;
    };
    String digits = unit == 1 ? value : value.substring(0, value.length() - 1);
    return Long.parseLong(digits) * unit;
  }

  private static String read(Path entry, String file) throws IOException {
    return Files.readString(entry.resolve(file)).strip();
  }
}
