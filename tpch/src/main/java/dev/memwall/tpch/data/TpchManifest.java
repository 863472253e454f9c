package dev.memwall.tpch.data;

import dev.memwall.core.AtomicFiles;
import dev.memwall.core.stats.StatisticsFile;
import java.io.IOException;
import java.io.Reader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The {@value #FILE_NAME} file of a TPC-H data directory: written last, and only after every table
 * file is complete, so its presence (with the expected format version and scale factor, and every
 * listed file present) is what makes a directory a complete data set.
 *
 * <p>It also keeps each data file's CRC32C checksums ({@link FileChecksums}, as
 * {@code <file>.crc32c=<file sum>:<dictionaries' sum>:<batch sum>,...}), which a
 * {@link TpchDatabase} verifies when it first opens the file in a process. A set written before
 * checksums were kept has none (the format is the same, so older code still reads newer sets); it is
 * opened with the structural validation of its batches only.
 *
 * @param formatVersion {@link #FORMAT_VERSION} when written by this code
 * @param scaleFactor the TPC-H scale factor
 * @param tables table name to its row count and number of files, in {@link TpchSchema#TABLE_NAMES} order
 * @param checksums file name (e.g. {@code lineitem-1.arrow}) to its checksums; empty for a set written
 *     without them
 */
public record TpchManifest(int formatVersion, double scaleFactor, Map<String, TableFiles> tables,
    Map<String, FileChecksums> checksums) {
  /** The manifest's file name inside a data directory. */
  public static final String FILE_NAME = StatisticsFile.MANIFEST;
  /** Bumped whenever the on-disk layout ({@link TpchSchema}) changes; older sets are regenerated. */
  public static final int FORMAT_VERSION = 1;

  /** The suffix of a data file's name that makes the key of its checksums. */
  static final String CHECKSUM_SUFFIX = ".crc32c";

  /** Row count and file count of one table. */
  public record TableFiles(long rows, int files) {}

  public TpchManifest {
    tables = Map.copyOf(tables);
    checksums = Map.copyOf(checksums);
  }

  /** A manifest without checksums. */
  public TpchManifest(int formatVersion, double scaleFactor, Map<String, TableFiles> tables) {
    this(formatVersion, scaleFactor, tables, Map.of());
  }

  /** The checksums of {@code file} (a data file of this set), if the set keeps them. */
  public Optional<FileChecksums> checksums(Path file) {
    return Optional.ofNullable(checksums.get(file.getFileName().toString()));
  }

  /** The files of {@code table} in the data directory {@code dir}, in row order. */
  public static Path file(Path dir, String table, int part) {
    return dir.resolve(fileName(table, part));
  }

  /** The part number of a data file named as {@link #fileName} gives; -1 for another name. */
  public static int part(Path file) {
    String name = file.getFileName().toString();
    int dash = name.lastIndexOf('-');
    try {
      return name.endsWith(".arrow") && dash > 0 ? Integer.parseInt(name.substring(dash + 1, name.length() - 6)) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The name of part {@code part} of {@code table}: {@code lineitem-1.arrow}. */
  public static String fileName(String table, int part) {
    return table + "-" + part + ".arrow";
  }

  /** Rows of {@code table}. */
  public long rows(String table) {
    TableFiles files = tables.get(TpchSchema.checkName(table));
    return files == null ? 0 : files.rows();
  }

  /**
   * The manifest of {@code dir} if it exists, parses, has the current format version and scale
   * factor {@code scaleFactor}, lists all eight tables and every listed file exists; empty otherwise.
   */
  public static Optional<TpchManifest> readValid(Path dir, double scaleFactor) {
    Path file = dir.resolve(FILE_NAME);
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
      int version = Integer.parseInt(properties.getProperty("format"));
      double sf = Double.parseDouble(properties.getProperty("scale-factor"));
      if (version != FORMAT_VERSION || Double.compare(sf, scaleFactor) != 0) {
        return Optional.empty();
      }
      Map<String, TableFiles> tables = new LinkedHashMap<>();
      Map<String, FileChecksums> checksums = new LinkedHashMap<>();
      for (String table : TpchSchema.TABLE_NAMES) {
        long rows = Long.parseLong(properties.getProperty(table + ".rows"));
        int files = Integer.parseInt(properties.getProperty(table + ".files"));
        if (rows < 0 || files < 1) {
          return Optional.empty();
        }
        for (int part = 1; part <= files; part++) {
          Path data = file(dir, table, part);
          if (!Files.isRegularFile(data)) {
            return Optional.empty();
          }
          String sums = properties.getProperty(data.getFileName() + CHECKSUM_SUFFIX);
          if (sums != null) {
            checksums.put(data.getFileName().toString(), FileChecksums.parse(sums));
          }
        }
        tables.put(table, new TableFiles(rows, files));
      }
      return Optional.of(new TpchManifest(version, sf, tables, checksums));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Writes this manifest into {@code dir} atomically (temporary file renamed into place). On failure
   * the temporary file is removed, and an I/O failure names the file ({@link FileSystemException}).
   */
  public void write(Path dir) throws IOException {
    StringBuilder text = new StringBuilder();
    text.append("# memwall TPC-H data set; written after all table files were complete\n");
    text.append("format=").append(formatVersion).append('\n');
    text.append("scale-factor=").append(scaleFactor).append('\n');
    for (String table : TpchSchema.TABLE_NAMES) {
      TableFiles files = tables.get(table);
      text.append(table).append(".rows=").append(files.rows()).append('\n');
      text.append(table).append(".files=").append(files.files()).append('\n');
      for (int part = 1; part <= files.files(); part++) {
        String name = fileName(table, part);
        FileChecksums sums = checksums.get(name);
        if (sums != null) {
          text.append(name).append(CHECKSUM_SUFFIX).append('=').append(sums.format()).append('\n');
        }
      }
    }
    AtomicFiles.write(dir.resolve(FILE_NAME), text.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** The directory name for a scale factor: {@code sf1}, {@code sf0.01}, {@code sf10}. */
  public static String directoryName(double scaleFactor) {
    return "sf" + BigDecimal.valueOf(scaleFactor).stripTrailingZeros().toPlainString();
  }
}
