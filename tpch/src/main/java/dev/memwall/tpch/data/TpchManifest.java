package dev.memwall.tpch.data;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The {@value #FILE_NAME} file of a TPC-H data directory: written last, and only after every table
 * file is complete, so its presence (with the expected format version and scale factor, and every
 * listed file present) is what makes a directory a complete data set.
 *
 * @param formatVersion {@link #FORMAT_VERSION} when written by this code
 * @param scaleFactor the TPC-H scale factor
 * @param tables table name to its row count and number of files, in {@link TpchSchema#TABLE_NAMES} order
 */
public record TpchManifest(int formatVersion, double scaleFactor, Map<String, TableFiles> tables) {
  /** The manifest's file name inside a data directory. */
  public static final String FILE_NAME = "_COMPLETE";
  /** Bumped whenever the on-disk layout ({@link TpchSchema}) changes; older sets are regenerated. */
  public static final int FORMAT_VERSION = 1;

  /** Row count and file count of one table. */
  public record TableFiles(long rows, int files) {}

  public TpchManifest {
    tables = Map.copyOf(tables);
  }

  /** The files of {@code table} in the data directory {@code dir}, in row order. */
  public static Path file(Path dir, String table, int part) {
    return dir.resolve(table + "-" + part + ".arrow");
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
      for (String table : TpchSchema.TABLE_NAMES) {
        long rows = Long.parseLong(properties.getProperty(table + ".rows"));
        int files = Integer.parseInt(properties.getProperty(table + ".files"));
        for (int part = 1; part <= files; part++) {
          if (!Files.isRegularFile(file(dir, table, part))) {
            return Optional.empty();
          }
        }
        tables.put(table, new TableFiles(rows, files));
      }
      return Optional.of(new TpchManifest(version, sf, tables));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Writes this manifest into {@code dir} atomically (temporary file renamed into place). */
  public void write(Path dir) throws IOException {
    StringBuilder text = new StringBuilder();
    text.append("# memwall TPC-H data set; written after all table files were complete\n");
    text.append("format=").append(formatVersion).append('\n');
    text.append("scale-factor=").append(scaleFactor).append('\n');
    for (String table : TpchSchema.TABLE_NAMES) {
      TableFiles files = tables.get(table);
      text.append(table).append(".rows=").append(files.rows()).append('\n');
      text.append(table).append(".files=").append(files.files()).append('\n');
    }
    Path temporary = dir.resolve(FILE_NAME + ".tmp");
    try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
      writer.write(text.toString());
    }
    Files.move(temporary, dir.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  /** The directory name for a scale factor: {@code sf1}, {@code sf0.01}, {@code sf10}. */
  public static String directoryName(double scaleFactor) {
    return "sf" + BigDecimal.valueOf(scaleFactor).stripTrailingZeros().toPlainString();
  }
}
