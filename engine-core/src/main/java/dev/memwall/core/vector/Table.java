package dev.memwall.core.vector;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An ordered list of Arrow record batches with one schema and their shared string dictionaries:
 * what a scan reads and what a plan returns.
 *
 * <p>Ownership: a table owns its record batches and dictionary vectors and frees them on
 * {@link #close}; {@link #borrow} makes a table over batches someone else owns (close is then a
 * no-op for them). Thread safety: immutable after construction; readers may share it.
 */
public final class Table implements AutoCloseable {
  /**
   * Schema metadata key prefix: {@code memwall.left-out.NAME} holds, in one line, why a reader left
   * column NAME of its input out of the table (an Arrow type memwall does not read, such as
   * {@code dev.memwall.core.ipc.ArrowFiles#map} meets in files other libraries write and
   * {@link #borrow} in a host's batches; see {@link ReadableSchema}).
   */
  public static final String LEFT_OUT_METADATA_PREFIX = "memwall.left-out.";

  private final Schema schema;
  private final List<VectorSchemaRoot> roots;
  private final List<Batch> batches;
  private final Map<Long, Dictionary> dictionaries;
  private final List<AutoCloseable> owned;
  private final long rowCount;

  private Table(Schema schema, List<VectorSchemaRoot> roots, Map<Long, Dictionary> dictionaries,
      List<AutoCloseable> owned) {
    this.schema = Objects.requireNonNull(schema, "schema");
    this.roots = List.copyOf(roots);
    this.dictionaries = Map.copyOf(dictionaries);
    this.owned = List.copyOf(owned);
    DictionaryProvider provider = provider();
    List<Batch> views = new ArrayList<>(roots.size());
    long rows = 0;
    for (VectorSchemaRoot root : roots) {
      if (!root.getSchema().equals(schema)) {
        throw new IllegalArgumentException("batch schema " + root.getSchema() + " differs from table schema " + schema);
      }
      views.add(new Batch(root, provider));
      rows += root.getRowCount();
    }
    this.batches = List.copyOf(views);
    this.rowCount = rows;
  }

  /**
   * A table that owns {@code roots} and the vectors of {@code dictionaries}, freeing them on close.
   *
   * @param dictionaries dictionary id to dictionary for the dictionary-encoded columns (may be empty)
   */
  public static Table own(Schema schema, List<VectorSchemaRoot> roots, Map<Long, Dictionary> dictionaries) {
    List<AutoCloseable> owned = new ArrayList<>(roots);
    dictionaries.values().forEach(d -> owned.add(d.getVector()));
    return new Table(schema, roots, dictionaries, owned);
  }

  /**
   * A table over batches owned elsewhere; closing it frees nothing. Columns of Arrow types memwall
   * does not read ({@link ReadableSchema}) are left out of the table, as {@code ArrowFiles.map}
   * leaves them out of a file's: the host's batches stay usable for every query that does not name
   * one, and a query that names one fails with a one-line message naming the column and its Arrow
   * type ({@link #leftOut}). The host's roots are then viewed through roots of the readable
   * columns ({@link #roots()}), over the same vectors.
   *
   * @throws IllegalArgumentException when a root's schema differs from {@code schema}
   */
  public static Table borrow(Schema schema, List<VectorSchemaRoot> roots, DictionaryProvider dictionaries) {
    Map<Long, Dictionary> map = new HashMap<>();
    if (dictionaries != null) {
      for (long id : dictionaries.getDictionaryIds()) {
        map.put(id, dictionaries.lookup(id));
      }
    }
    ReadableSchema readable = ReadableSchema.of(schema, dictionaries, "Table.borrow left the column out");
    if (readable.keepsAll()) {
      return new Table(schema, roots, map, List.of());
    }
    List<VectorSchemaRoot> narrowed = new ArrayList<>(roots.size());
    for (VectorSchemaRoot root : roots) {
      if (!root.getSchema().equals(schema)) {
        throw new IllegalArgumentException("batch schema " + root.getSchema() + " differs from table schema " + schema);
      }
      narrowed.add(readable.narrow(root));
    }
    return new Table(readable.schema(), narrowed, map, List.of());
  }

  public Schema schema() {
    return schema;
  }

  public List<Batch> batches() {
    return batches;
  }

  public long rowCount() {
    return rowCount;
  }

  /** The string dictionaries by id. */
  public Map<Long, Dictionary> dictionaries() {
    return dictionaries;
  }

  /** The dictionaries as Arrow's provider interface. */
  public DictionaryProvider provider() {
    return new DictionaryProvider.MapDictionaryProvider(dictionaries.values().toArray(Dictionary[]::new));
  }

  /** The raw record batches. */
  public List<VectorSchemaRoot> roots() {
    return roots;
  }

  /**
   * Index of column {@code name} in the schema.
   *
   * @throws IllegalArgumentException listing the columns when there is none of that name, or saying
   *     why it was {@linkplain #leftOut left out} of the file it was read from
   */
  public int columnIndex(String name) {
    var fields = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).getName().equals(name)) {
        return i;
      }
    }
    String leftOut = leftOut(schema, name);
    throw new IllegalArgumentException(leftOut != null ? leftOut : "no column '" + name + "' in table with columns "
        + fields.stream().map(f -> f.getName()).toList());
  }

  /**
   * Why column {@code name} was left out of the table of {@code schema} when it was read (one line
   * naming the column, its Arrow type and, for a file, the file), or null when it was not.
   */
  public static String leftOut(Schema schema, String name) {
    Map<String, String> metadata = schema.getCustomMetadata();
    return metadata == null ? null : metadata.get(LEFT_OUT_METADATA_PREFIX + name);
  }

  @Override
  public void close() {
    try {
      AutoCloseables.close(owned);
    } catch (Exception e) {
      throw new IllegalStateException("closing table failed", e);
    }
  }
}
