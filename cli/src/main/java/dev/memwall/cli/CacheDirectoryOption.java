package dev.memwall.cli;

import dev.memwall.tpch.data.TpchDataGenerator;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The {@code --data} option of the commands that read or write memwall's cache directory
 * ({@code tpch}, {@code check}, {@code calibrate}), mixed into each, with its default: one
 * declaration so that the option reads and resolves alike in every command.
 *
 * <p>Thread safety: none; picocli fills it once per parse. Bad input: picocli refuses a value that
 * is not a path; whether the directory exists or is writable is the command's to find out.
 */
final class CacheDirectoryOption {
  @Option(names = "--data", paramLabel = "DIR",
      description = "Cache directory: TPC-H data lands in DIR/sf<SF>, the machine profile in DIR "
          + "(default: $XDG_CACHE_HOME/memwall or ~/.cache/memwall).")
  Path data;

  /** The directory given, or {@link TpchDataGenerator#defaultCacheDirectory()} without one. */
  Path directory() {
    return data != null ? data : TpchDataGenerator.defaultCacheDirectory();
  }
}
