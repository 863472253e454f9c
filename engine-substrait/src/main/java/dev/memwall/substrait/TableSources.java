package dev.memwall.substrait;

import dev.memwall.core.Closing;
import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ReadableSchema;
import dev.memwall.core.vector.Table;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.VectorEqualsVisitor;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.VectorBatchAppender;

/**
 * Where a {@link Catalog}'s own tables come from: Arrow IPC files and memwall data set directories,
 * memory-mapped with {@link ArrowFiles#map} (zero-copy, validated before any buffer is trusted), and a
 * host's {@link ArrowReader} stream, copied into memwall's memory.
 *
 * <p>Ownership: every table returned is the caller's (the catalog's) to close; a failure closes what
 * was made before it. Thread safety: stateless.
 */
final class TableSources {
  /** A part of a table in a data set: {@code <table>-<n>.arrow}, as memwall's data sets store them. */
  private static final Pattern PART = Pattern.compile("(.+)-(\\d+)\\.arrow");
  /** The names Arrow IPC files go by; anything else in a data set directory is not a table. */
  static final List<String> EXTENSIONS = List.of(".arrow", ".arrows", ".feather", ".ipc");

  private TableSources() {}

  /**
   * The files of each table of the data set in {@code directory}, by table name in name order: the
   * parts {@code <table>-<n>.arrow} of a table in part order, and each other Arrow file as a table of
   * its own named by the file name without its extension. Names starting with {@code .} or {@code _}
   * (a manifest, a temporary file) are skipped.
   *
   * @throws NoSuchFileException when the directory does not exist or holds no Arrow file
   * @throws NotDirectoryException when it is not a directory
   * @throws IllegalArgumentException when two files would be the same table (a part and a lone file)
   */
  static Map<String, List<Path>> dataSetFiles(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      throw new NoSuchFileException(directory.toString(), null, "no such data set directory");
    }
    if (!Files.isDirectory(directory)) {
      throw new NotDirectoryException(directory.toString());
    }
    Map<String, TreeMap<Long, Path>> parts = new TreeMap<>();
    Map<String, Path> lone = new TreeMap<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
      for (Path entry : entries) {
        String file = entry.getFileName().toString();
        if (file.startsWith(".") || file.startsWith("_") || !Files.isRegularFile(entry)) {
          continue;
        }
        Matcher part = PART.matcher(file);
        if (part.matches()) {
          parts.computeIfAbsent(part.group(1), t -> new TreeMap<>()).put(Long.parseLong(part.group(2)), entry);
          continue;
        }
        String lower = file.toLowerCase(Locale.ROOT);
        for (String extension : EXTENSIONS) {
          if (lower.endsWith(extension) && file.length() > extension.length()) {
            lone.put(file.substring(0, file.length() - extension.length()), entry);
            break;
          }
        }
      }
    }
    Map<String, List<Path>> tables = new TreeMap<>();
    parts.forEach((table, files) -> tables.put(table, List.copyOf(files.values())));
    for (Map.Entry<String, Path> file : lone.entrySet()) {
      if (tables.putIfAbsent(file.getKey(), List.of(file.getValue())) != null) {
        throw new IllegalArgumentException("data set " + directory + ": " + file.getValue().getFileName()
            + " and the parts " + file.getKey() + "-<n>.arrow would both be table '" + file.getKey() + "'");
      }
    }
    if (tables.isEmpty()) {
      throw new NoSuchFileException(directory.toString(), null, "no Arrow files (" + String.join(", ", EXTENSIONS)
          + ") in the data set directory");
    }
    return tables;
  }

  /**
   * {@code files} mapped as table {@code name}: each file's mapping, and the table to query, which is
   * the mapping itself for one file, else a table borrowing the batches of every mapping in order.
   * The mappings are the caller's to close (the borrowing table frees nothing).
   *
   * @throws IllegalArgumentException naming the table and the files when parts differ in their
   *     columns or in a dictionary
   */
  static Mapped map(String name, List<Path> files, EngineMemory memory) throws IOException {
    List<Table> mappings = new ArrayList<>(files.size());
    try {
      for (Path file : files) {
        mappings.add(ArrowFiles.map(file, memory));
      }
      Table first = mappings.getFirst();
      if (mappings.size() == 1) {
        return new Mapped(first, mappings);
      }
      List<VectorSchemaRoot> roots = new ArrayList<>();
      for (int i = 0; i < mappings.size(); i++) {
        Table part = mappings.get(i);
        if (!part.schema().getFields().equals(first.schema().getFields())) {
          throw new IllegalArgumentException("table '" + name + "': " + files.get(i) + " has the columns "
              + part.schema().getFields() + " but " + files.getFirst() + " has " + first.schema().getFields());
        }
        for (Map.Entry<Long, Dictionary> dictionary : first.dictionaries().entrySet()) {
          Dictionary other = part.dictionaries().get(dictionary.getKey());
          if (other == null || !VectorEqualsVisitor.vectorEquals(dictionary.getValue().getVector(), other.getVector())) {
            throw new IllegalArgumentException("table '" + name + "': " + files.get(i) + " has another dictionary "
                + dictionary.getKey() + " than " + files.getFirst() + "; the parts of one table share their dictionaries");
          }
        }
        roots.addAll(part.roots());
      }
      return new Mapped(Table.borrow(first.schema(), roots, first.provider()), mappings);
    } catch (IOException | RuntimeException e) {
      Closing.closeAll(mappings, e);
      throw e;
    }
  }

  /** A mapped table and the mappings it reads, which free it when closed. */
  record Mapped(Table table, List<Table> mappings) {}

  /**
   * Reads {@code reader} to its end and copies every batch, and the dictionaries its readable
   * columns use, into {@code memory}'s allocator, charged to its budget. Columns memwall does not
   * read are left out with the reason, as {@link Table#borrow} leaves them out. The reader stays the
   * caller's to close; its batches are only read.
   *
   * @throws IllegalArgumentException naming the table when the stream replaces a dictionary after a
   *     batch that used it (its earlier codes would then mean other values)
   * @throws dev.memwall.core.memory.BudgetExceededException when the copy does not fit the budget;
   *     what was copied is freed by then
   * @throws IOException as the reader reports a failure to read
   */
  static Table copy(String name, ArrowReader reader, EngineMemory memory) throws IOException {
    BufferAllocator allocator = memory.arrow();
    Schema input = reader.getVectorSchemaRoot().getSchema();
    List<VectorSchemaRoot> roots = new ArrayList<>();
    Map<Long, Dictionary> dictionaries = new LinkedHashMap<>();
    try {
      ReadableSchema readable = null;
      while (reader.loadNextBatch()) {
        if (readable == null) { // dictionaries arrive with the first batch
          readable = ReadableSchema.of(input, reader, "registered from a stream as table '" + name + "'");
        }
        roots.add(copy(readable.narrow(reader.getVectorSchemaRoot()), allocator));
        copyDictionaries(name, readable.schema(), reader, dictionaries, allocator);
      }
      if (readable == null) {
        readable = ReadableSchema.of(input, reader, "registered from a stream as table '" + name + "'");
        copyDictionaries(name, readable.schema(), reader, dictionaries, allocator);
      }
      return Table.own(readable.schema(), roots, dictionaries);
    } catch (IOException | RuntimeException e) {
      List<AutoCloseable> copied = new ArrayList<>(roots);
      dictionaries.values().forEach(d -> copied.add(d.getVector()));
      Closing.closeAll(copied, e);
      throw e;
    }
  }

  private static VectorSchemaRoot copy(VectorSchemaRoot source, BufferAllocator allocator) {
    List<FieldVector> vectors = new ArrayList<>(source.getFieldVectors().size());
    try {
      for (FieldVector vector : source.getFieldVectors()) {
        FieldVector target = vector.getField().createVector(allocator);
        vectors.add(target);
        target.allocateNew();
        target.setValueCount(0);
        VectorBatchAppender.batchAppend(target, vector);
      }
      return new VectorSchemaRoot(source.getSchema().getFields(), vectors, source.getRowCount());
    } catch (RuntimeException e) {
      Closing.closeAll(vectors, e);
      throw e;
    }
  }

  /**
   * Copies the dictionaries of {@code schema}'s encoded columns not copied yet into {@code copies};
   * one copied already must still be the reader's.
   */
  private static void copyDictionaries(String name, Schema schema, ArrowReader reader, Map<Long, Dictionary> copies,
      BufferAllocator allocator) throws IOException {
    for (Field field : schema.getFields()) {
      if (field.getDictionary() == null) {
        continue;
      }
      long id = field.getDictionary().getId();
      Dictionary source = reader.lookup(id);
      if (source == null) {
        continue; // ReadableSchema has left such a column out already
      }
      Dictionary copied = copies.get(id);
      if (copied == null) {
        FieldVector values = source.getVector().getField().createVector(allocator);
        try {
          values.allocateNew();
          values.setValueCount(0);
          VectorBatchAppender.batchAppend(values, source.getVector());
        } catch (RuntimeException e) {
          values.close();
          throw e;
        }
        copies.put(id, new Dictionary(values, source.getEncoding()));
      } else if (!VectorEqualsVisitor.vectorEquals(copied.getVector(), source.getVector())) {
        throw new IllegalArgumentException("table '" + name + "': the stream replaces dictionary " + id + " of column '"
            + field.getName() + "' after a batch that used it; register a stream whose dictionaries stay as first sent");
      }
    }
  }
}
