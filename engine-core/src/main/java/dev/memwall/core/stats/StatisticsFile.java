package dev.memwall.core.stats;

import dev.memwall.core.AtomicFiles;
import dev.memwall.core.vector.Table;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.zip.CRC32C;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.InflaterInputStream;

/**
 * The {@value #FILE_NAME} sidecar of a memwall data set directory: the statistics of each part file
 * ({@code <table>-<n>.arrow}) as its writer computed them, so that a reader gets every column's
 * statistics without a pass over the data. Each {@link Part} is kept apart, its columns as {@link
 * ColumnSketch}es with their HyperLogLog registers, and a table's parts are {@link #merged} on
 * reading.
 *
 * <p>Format (big-endian): the magic {@code MWST}, the format {@link #VERSION} (an int), the length
 * of the body (an int), the body deflated, and the CRC32C of every byte before it (an int). The body:
 * the number of parts, then per part its file name (modified UTF-8), size, last-modified time (ms),
 * CRC32C of the whole file as its manifest keeps it (-1 when none), rows and number of columns, then
 * per column its name, nulls, whether all batches are encoded, the largest dictionary's size, min, max
 * (doubles, NaN for none) and the 4096 registers. A small table's registers are mostly zero and
 * deflate to little.
 *
 * <p>A part is fresh, and its statistics used, only when the file has the recorded size and
 * last-modified time and, where the directory's manifest ({@value #MANIFEST}, {@code
 * <file>.crc32c=<file sum>:...}) and the part both keep the file's sum, the same sum. Anything else
 * (no sidecar, a wrong magic or version, a bad checksum, a truncated or malformed body, a part missing
 * or stale) gives no statistics, and the reader falls back to collecting them: {@link #read} and
 * {@link #merged} never throw for bad input, they return empty. Stateless and thread-safe; writes are
 * atomic (a temporary file renamed into place).
 */
public final class StatisticsFile {
  /** The sidecar's name in a data set directory (a leading {@code _}: not a table). */
  public static final String FILE_NAME = "_STATISTICS";
  /** The format version written; any other is not read. */
  public static final int VERSION = 1;
  /** The manifest memwall's TPC-H data sets keep their files' checksums in. */
  public static final String MANIFEST = "_COMPLETE";
  private static final int MAGIC = 0x4D57_5354; // "MWST"
  private static final int HEADER = 12;
  /** Larger than any sidecar of a sane data set; a bigger file is not read. */
  private static final long MAX_BYTES = 1L << 28;

  private StatisticsFile() {}

  /**
   * What the writer knew of one part file.
   *
   * @param file the file's name in the directory
   * @param size its size in bytes
   * @param modified its last-modified time in milliseconds
   * @param checksum the CRC32C of the whole file, -1 when not known
   * @param rows its rows
   * @param columns its columns' sketches by column name, in schema order
   */
  public record Part(String file, long size, long modified, long checksum, long rows, Map<String, ColumnSketch> columns) {
    public Part {
      columns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    }

    /** The part {@code file} whose batches {@code mapped} holds (mapped from it), with {@code checksum} (-1: none). */
    public static Part of(Path file, Table mapped, long checksum) throws IOException {
      Map<String, ColumnSketch> columns = new LinkedHashMap<>();
      for (int i = 0; i < mapped.schema().getFields().size(); i++) {
        columns.put(mapped.schema().getFields().get(i).getName(), ColumnSketch.of(mapped, i));
      }
      return new Part(file.getFileName().toString(), Files.size(file), Files.getLastModifiedTime(file).toMillis(),
          checksum, mapped.rowCount(), columns);
    }
  }

  /** A table's statistics merged from its parts. */
  public record Merged(long rows, Map<String, ColumnSketch> columns) {}

  /**
   * Writes {@code parts} as {@code directory}'s sidecar, replacing any. On failure no sidecar is half
   * written (the temporary file is removed), and an I/O failure names the file ({@link FileSystemException}).
   */
  public static void write(Path directory, List<Part> parts) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(new DeflaterOutputStream(body))) {
      out.writeInt(parts.size());
      for (Part part : parts) {
        out.writeUTF(part.file());
        out.writeLong(part.size());
        out.writeLong(part.modified());
        out.writeLong(part.checksum());
        out.writeLong(part.rows());
        out.writeInt(part.columns().size());
        for (Map.Entry<String, ColumnSketch> column : part.columns().entrySet()) {
          ColumnSketch sketch = column.getValue();
          out.writeUTF(column.getKey());
          out.writeLong(sketch.nulls());
          out.writeBoolean(sketch.allEncoded());
          out.writeLong(sketch.dictionary());
          out.writeDouble(sketch.min());
          out.writeDouble(sketch.max());
          out.write(sketch.sketch().registers());
        }
      }
    }
    byte[] deflated = body.toByteArray();
    ByteBuffer file = ByteBuffer.allocate(HEADER + deflated.length + Integer.BYTES);
    file.putInt(MAGIC).putInt(VERSION).putInt(deflated.length).put(deflated);
    CRC32C crc = new CRC32C();
    crc.update(file.array(), 0, file.position());
    file.putInt((int) crc.getValue());
    AtomicFiles.write(directory.resolve(FILE_NAME), file.array());
  }

  /** The parts {@code directory}'s sidecar describes, by file name; empty when there is none or it is not valid. */
  public static Map<String, Part> read(Path directory) {
    try {
      Path path = directory.resolve(FILE_NAME);
      if (!Files.isRegularFile(path) || Files.size(path) > MAX_BYTES || Files.size(path) < HEADER + Integer.BYTES) {
        return Map.of();
      }
      ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(path));
      int length = file.limit() - HEADER - Integer.BYTES;
      if (file.getInt(0) != MAGIC || file.getInt(4) != VERSION || file.getInt(8) != length) {
        return Map.of();
      }
      CRC32C crc = new CRC32C();
      crc.update(file.array(), 0, HEADER + length);
      if (file.getInt(HEADER + length) != (int) crc.getValue()) {
        return Map.of();
      }
      return parse(new ByteArrayInputStream(file.array(), HEADER, length));
    } catch (IOException | RuntimeException e) {
      return Map.of(); // corrupt or unreadable: the reader collects statistics itself
    }
  }

  private static Map<String, Part> parse(ByteArrayInputStream deflated) throws IOException {
    Map<String, Part> parts = new LinkedHashMap<>();
    try (DataInputStream in = new DataInputStream(new InflaterInputStream(deflated))) {
      int count = in.readInt();
      if (count < 0) {
        throw new IOException("negative part count");
      }
      for (int p = 0; p < count; p++) {
        String file = in.readUTF();
        long size = in.readLong();
        long modified = in.readLong();
        long checksum = in.readLong();
        long rows = in.readLong();
        int columns = in.readInt();
        if (rows < 0 || columns < 0) {
          throw new IOException("negative counts");
        }
        Map<String, ColumnSketch> sketches = new LinkedHashMap<>();
        for (int c = 0; c < columns; c++) {
          String name = in.readUTF();
          long nulls = in.readLong();
          boolean encoded = in.readBoolean();
          long dictionary = in.readLong();
          double min = in.readDouble();
          double max = in.readDouble();
          byte[] registers = new byte[HyperLogLog.REGISTERS];
          in.readFully(registers);
          if (nulls > rows || sketches.put(name, new ColumnSketch(nulls, encoded, dictionary, min, max,
              HyperLogLog.of(registers))) != null) {
            throw new IOException("a column with more nulls than rows, or twice");
          }
        }
        if (parts.put(file, new Part(file, size, modified, checksum, rows, sketches)) != null) {
          throw new IOException("a part twice");
        }
      }
      if (in.read() != -1) {
        throw new IOException("bytes after the last part");
      }
    }
    return parts;
  }

  /**
   * The statistics of the table made of {@code files} (in {@code directory}), merged from {@code
   * parts} ({@link #read}'s); empty unless every file has a fresh part, all with the same columns.
   */
  public static Optional<Merged> merged(Path directory, List<Path> files, Map<String, Part> parts) {
    if (parts.isEmpty() || files.isEmpty()) {
      return Optional.empty();
    }
    try {
      Map<String, Long> sums = manifestSums(directory);
      long rows = 0;
      Map<String, ColumnSketch> columns = null;
      for (Path file : files) {
        Part part = parts.get(file.getFileName().toString());
        if (part == null || !fresh(file, part, sums)) {
          return Optional.empty();
        }
        rows += part.rows();
        if (columns == null) {
          columns = new LinkedHashMap<>();
          for (Map.Entry<String, ColumnSketch> column : part.columns().entrySet()) {
            ColumnSketch copy = column.getValue();
            columns.put(column.getKey(), new ColumnSketch(copy.nulls(), copy.allEncoded(), copy.dictionary(),
                copy.min(), copy.max(), copy.sketch()));
          }
        } else if (!columns.keySet().equals(part.columns().keySet())) {
          return Optional.empty();
        } else {
          for (Map.Entry<String, ColumnSketch> column : part.columns().entrySet()) {
            columns.get(column.getKey()).merge(column.getValue());
          }
        }
      }
      return Optional.of(new Merged(rows, columns));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static boolean fresh(Path file, Part part, Map<String, Long> sums) throws IOException {
    if (Files.size(file) != part.size() || Files.getLastModifiedTime(file).toMillis() != part.modified()) {
      return false;
    }
    Long sum = sums.get(part.file());
    return sum == null || part.checksum() < 0 || sum == part.checksum();
  }

  /** The whole-file sums {@code directory}'s manifest keeps, by file name; empty without one. */
  private static Map<String, Long> manifestSums(Path directory) throws IOException {
    Path manifest = directory.resolve(MANIFEST);
    if (!Files.isRegularFile(manifest)) {
      return Map.of();
    }
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(manifest, StandardCharsets.UTF_8)) {
      properties.load(reader);
    }
    Map<String, Long> sums = new LinkedHashMap<>();
    for (String key : properties.stringPropertyNames()) {
      if (key.endsWith(".crc32c")) {
        String value = properties.getProperty(key).strip();
        int colon = value.indexOf(':');
        sums.put(key.substring(0, key.length() - ".crc32c".length()),
            HexFormat.fromHexDigitsToLong(colon < 0 ? value : value.substring(0, colon)) & 0xFFFF_FFFFL);
      }
    }
    return sums;
  }
}
