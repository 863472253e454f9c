package dev.memwall.core.vector;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One Arrow record batch seen as memwall {@link Column}s.
 *
 * <p>Ownership: a batch does not own its {@link VectorSchemaRoot}; whoever created the root (a
 * {@link Table}, or a caller passing its own Arrow batches) closes it, after which the batch must
 * not be used. Thread safety: immutable; safe for concurrent readers.
 */
public final class Batch {
  private final VectorSchemaRoot root;
  private final List<Column> columns;

  /**
   * Views {@code root}.
   *
   * @param dictionaries resolves dictionary-encoded columns; may be null when none is encoded
   */
  public Batch(VectorSchemaRoot root, DictionaryProvider dictionaries) {
    this.root = root;
    List<Column> views = new ArrayList<>(root.getFieldVectors().size());
    for (FieldVector vector : root.getFieldVectors()) {
      views.add(Column.of(vector, dictionaries));
    }
    this.columns = List.copyOf(views);
  }

  /** Views {@code root} through {@code columns}, already made for its vectors (one per vector, in order). */
  Batch(VectorSchemaRoot root, List<Column> columns) {
    this.root = root;
    this.columns = List.copyOf(columns);
  }

  public int rowCount() {
    return root.getRowCount();
  }

  public Schema schema() {
    return root.getSchema();
  }

  public List<Column> columns() {
    return columns;
  }

  public Column column(int index) {
    return columns.get(index);
  }

  /**
   * The column named {@code name}.
   *
   * @throws IllegalArgumentException listing the available names when there is none, or saying why
   *     it was {@linkplain Table#leftOut left out} of the file it was read from
   */
  public Column column(String name) {
    for (Column column : columns) {
      if (column.name().equals(name)) {
        return column;
      }
    }
    String leftOut = Table.leftOut(root.getSchema(), name);
    throw new IllegalArgumentException(leftOut != null ? leftOut : "no column '" + name + "' in batch with columns "
        + columns.stream().map(Column::name).toList());
  }

  /** The underlying Arrow vectors. */
  public VectorSchemaRoot arrow() {
    return root;
  }
}
