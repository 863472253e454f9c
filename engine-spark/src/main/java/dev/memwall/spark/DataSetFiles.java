package dev.memwall.spark;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.StructType;

/**
 * The Arrow IPC files one {@code spark.read.format("memwall").load(path)} reads, found and described on
 * the driver: each file's memwall schema, rows and bytes per column, and the Spark schema they share.
 *
 * <p>Which files: {@code path} itself when it is a file; in a directory, the files of the table named by
 * the {@value MemwallSettings#TABLE} option ({@code <table>-<n>.arrow}, in part order, as memwall's TPC-H
 * data sets store their tables), else every Arrow file there ({@code .arrow}, {@code .arrows},
 * {@code .feather}, {@code .ipc}; names starting with {@code .} or {@code _} are skipped). A directory
 * holding parts of several tables ({@code lineitem-1.arrow}, {@code orders-1.arrow}) needs the option.
 *
 * <p>Each file is mapped once ({@link ArrowFiles#mapTrusted}, zero-copy: a footer parse, no data read; the
 * tasks validate the batches and columns they read) and
 * closed again; columns of Arrow types memwall does not read are left out of the schema (and said so in
 * {@link #leftOut}).
 *
 * <p>Bad input: a missing path, a directory without matching files, a table of no files, files whose
 * Spark schemas differ, or a corrupt file throw {@link IllegalArgumentException} (the corrupt file's
 * {@code CorruptArrowFileException} as its cause) naming the path. Thread safety: immutable.
 */
record DataSetFiles(Path path, String table, List<FileInfo> files, StructType schema, Map<String, String> leftOut) {
  private static final Pattern PART = Pattern.compile("(.+)-(\\d+)\\.arrow");
  private static final List<String> EXTENSIONS = List.of(".arrow", ".arrows", ".feather", ".ipc");

  /**
   * One file.
   *
   * @param arrowSchema its memwall schema in memory format (dictionary-encoded columns hold codes)
   * @param columnBytes bytes of each column's buffers (and its dictionary's), by name
   * @param batchRows the rows of each record batch, in file order
   * @param batchColumnBytes bytes of each column's buffers in each record batch (dictionaries not
   *     counted), by name, in file order
   */
  record FileInfo(Path path, long rows, long bytes, Schema arrowSchema, Map<String, Long> columnBytes,
      long[] batchRows, Map<String, long[]> batchColumnBytes) {
    /** The bytes of {@code columns} in record batch {@code batch}. */
    long batchBytes(int batch, List<String> columns) {
      long bytes = 0;
      for (String column : columns) {
        long[] perBatch = batchColumnBytes.get(column);
        bytes += perBatch == null ? 0 : perBatch[batch];
      }
      return bytes;
    }
  }

  DataSetFiles {
    files = List.copyOf(files);
    leftOut = Map.copyOf(leftOut);
  }

  /** Finds and describes the files of {@code path} ({@code table}: the table option, or null). */
  static DataSetFiles of(Path path, String table) {
    List<Path> paths = list(path, table);
    List<FileInfo> files = new ArrayList<>();
    StructType schema = null;
    Map<String, String> leftOut = new LinkedHashMap<>();
    try (EngineMemory memory = EngineMemory.create("memwall driver: describing " + path)) {
      for (Path file : paths) {
        FileInfo info = describe(file, memory, leftOut);
        StructType fileSchema = SparkTypes.of(info.arrowSchema(), leftOut);
        if (schema == null) {
          schema = fileSchema;
        } else if (!schema.equals(fileSchema)) {
          throw new IllegalArgumentException("memwall: " + file + " has the schema " + fileSchema.simpleString()
              + " but " + paths.getFirst() + " has " + schema.simpleString() + "; one read needs one schema");
        }
        files.add(info);
      }
    }
    return new DataSetFiles(path, table, files, schema, leftOut);
  }

  long rows() {
    return files.stream().mapToLong(FileInfo::rows).sum();
  }

  /** Bytes the named columns occupy in all files together. */
  long bytes(List<String> columns) {
    long bytes = 0;
    for (FileInfo file : files) {
      for (String column : columns) {
        bytes += file.columnBytes().getOrDefault(column, 0L);
      }
    }
    return bytes;
  }

  /** What a user reads about this data set: the path and table. */
  String describe() {
    return table == null ? path.toString() : path + " (table " + table + ")";
  }

  private static FileInfo describe(Path file, EngineMemory memory, Map<String, String> leftOut) {
    try (Table mapped = ArrowFiles.mapTrusted(file, memory)) { // the tasks validate what they read
      Schema schema = mapped.schema();
      List<VectorSchemaRoot> roots = mapped.roots();
      long[] batchRows = roots.stream().mapToLong(VectorSchemaRoot::getRowCount).toArray();
      Map<String, Long> columnBytes = new LinkedHashMap<>();
      Map<String, long[]> batchColumnBytes = new LinkedHashMap<>();
      for (Field field : schema.getFields()) {
        long bytes = 0;
        long[] perBatch = new long[roots.size()];
        for (int batch = 0; batch < perBatch.length; batch++) {
          perBatch[batch] = roots.get(batch).getVector(field.getName()).getBufferSize();
          bytes += perBatch[batch];
        }
        batchColumnBytes.put(field.getName(), perBatch);
        if (field.getDictionary() != null) {
          Dictionary dictionary = mapped.dictionaries().get(field.getDictionary().getId());
          FieldVector values = dictionary == null ? null : dictionary.getVector();
          bytes += values == null ? 0 : values.getBufferSize();
        }
        columnBytes.put(field.getName(), bytes);
      }
      if (schema.getCustomMetadata() != null) {
        schema.getCustomMetadata().forEach((key, why) -> {
          if (key.startsWith(Table.LEFT_OUT_METADATA_PREFIX)) {
            leftOut.putIfAbsent(key.substring(Table.LEFT_OUT_METADATA_PREFIX.length()), why);
          }
        });
      }
      return new FileInfo(file, mapped.rowCount(), Files.size(file), schema, columnBytes, batchRows,
          batchColumnBytes);
    } catch (IOException e) {
      throw new IllegalArgumentException("memwall cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static List<Path> list(Path path, String table) {
    if (Files.isRegularFile(path)) {
      if (table != null) {
        throw new IllegalArgumentException("memwall: option " + MemwallSettings.TABLE
            + " names a table of a directory, but " + path + " is a file");
      }
      return List.of(path);
    }
    if (!Files.isDirectory(path)) {
      throw new IllegalArgumentException("memwall: no such file or directory: " + path);
    }
    Listing listing = Listing.of(path);
    if (table != null) {
      TreeMap<Long, Path> files = listing.parts().get(table);
      if (files == null) {
        throw new IllegalArgumentException("memwall: no files " + table + "-<n>.arrow in " + path + "; its tables: "
            + listing.parts().keySet());
      }
      return List.copyOf(files.values());
    }
    if (listing.parts().size() > 1) {
      throw new IllegalArgumentException("memwall: " + path + " holds the tables " + listing.parts().keySet()
          + "; choose one with .option(\"" + MemwallSettings.TABLE + "\", name)");
    }
    List<Path> all = listing.all();
    if (all.isEmpty()) {
      throw new IllegalArgumentException("memwall: no Arrow files (" + String.join(", ", new TreeSet<>(EXTENSIONS))
          + ") in " + path);
    }
    return all;
  }

  /**
   * The Arrow files of a directory as a read sees them: parts {@code <table>-<n>.arrow} by table and
   * number, and the other Arrow files by name; hidden names ({@code .}, {@code _}) skipped.
   */
  record Listing(Map<String, TreeMap<Long, Path>> parts, List<Path> others) {
    /** The listing of {@code dir}; empty when it does not exist. */
    static Listing of(Path dir) {
      Map<String, TreeMap<Long, Path>> parts = new TreeMap<>();
      List<Path> others = new ArrayList<>();
      if (!Files.isDirectory(dir)) {
        return new Listing(parts, others);
      }
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
        for (Path entry : entries) {
          String name = entry.getFileName().toString();
          if (name.startsWith(".") || name.startsWith("_") || !Files.isRegularFile(entry)
              || EXTENSIONS.stream().noneMatch(name::endsWith)) {
            continue;
          }
          Matcher part = PART.matcher(name);
          if (part.matches() && part.group(2).length() < 18) {
            parts.computeIfAbsent(part.group(1), t -> new TreeMap<>()).put(Long.parseLong(part.group(2)), entry);
          } else {
            others.add(entry);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("memwall cannot list " + dir, e);
      }
      others.sort(Comparator.comparing(Path::toString));
      return new Listing(parts, others);
    }

    /** Every Arrow file: the parts in table and part order, then the others. */
    List<Path> all() {
      List<Path> all = new ArrayList<>();
      parts.values().forEach(files -> all.addAll(files.values()));
      all.addAll(others);
      return all;
    }

    /** The files of {@code table}'s parts, or with no table every file ({@link #all}). */
    List<Path> files(String table) {
      if (table == null) {
        return all();
      }
      TreeMap<Long, Path> files = parts.get(table);
      return files == null ? List.of() : List.copyOf(files.values());
    }

    /** The highest part number of {@code table}, 0 when it has none. */
    long lastPart(String table) {
      TreeMap<Long, Path> files = parts.get(table);
      return files == null ? 0 : files.lastKey();
    }
  }
}
