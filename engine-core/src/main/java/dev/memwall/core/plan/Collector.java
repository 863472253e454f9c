package dev.memwall.core.plan;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Chunk;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.output.OutputColumn;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.TableBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Materializes projected values of the selected rows, each column written by its
 * {@link OutputColumn}. A string column that is dictionary-encoded where the pipeline ends is
 * collected as codes ({@link TableBuilder}'s encoded columns): the codes of a small dictionary are
 * copied as they are, those of another dictionary met later translated; a chunk whose dictionary would make the column's dictionary large starts a new part
 * in which that column is decoded. {@link TableBuilder#concatenate} makes one table of the parts.
 *
 * <p>Ownership: the collector owns its parts until closed (the caller concatenates them, which
 * empties them). Thread safety: one per worker.
 */
final class Collector implements AutoCloseable {
  private final OutputColumn[] outputs;
  private final List<String> names;
  private final List<ColumnType> types;
  private final boolean[] encoded;
  private final BufferAllocator allocator;
  private final int batchRows;
  /** Earlier parts of this worker's rows, before a column had to be decoded. */
  private final List<TableBuilder> finished = new ArrayList<>();
  private TableBuilder builder;

  /**
   * @param columns what to collect: column references, their SUBSTRINGs, or computed expressions,
   *     bound with {@code binder} ({@link OutputColumn#bind} for a table)
   * @param allocator where the rows' batches are allocated
   * @param batchRows rows per batch ({@link TableBuilder#batchRows})
   */
  Collector(Binder binder, List<NamedExpr> columns, BufferAllocator allocator, int batchRows) {
    this.outputs = columns.stream().map(c -> OutputColumn.bind(binder, c, OutputColumn.Target.TABLE))
        .toArray(OutputColumn[]::new);
    this.types = Arrays.stream(outputs).map(OutputColumn::type).toList();
    this.names = columns.stream().map(NamedExpr::name).toList();
    this.allocator = allocator;
    this.batchRows = batchRows;
    this.encoded = new boolean[outputs.length];
    for (int i = 0; i < outputs.length; i++) {
      encoded[i] = outputs[i].dictionaryEncoded();
    }
    this.builder = new TableBuilder(names, types, encoded, allocator).batchRows(batchRows);
  }

  /** Rows collected so far. */
  long rows() {
    long rows = builder.rowCount();
    for (TableBuilder part : finished) {
      rows += part.rowCount();
    }
    return rows;
  }

  /**
   * Hands this collector's parts (its rows so far, in order) to the caller, who concatenates and
   * closes them, and goes on in a new, empty part.
   */
  List<TableBuilder> takeParts() {
    List<TableBuilder> parts = parts();
    finished.clear();
    builder = new TableBuilder(names, types, encoded, allocator).batchRows(batchRows);
    return parts;
  }

  List<TableBuilder> parts() {
    List<TableBuilder> parts = new ArrayList<>(finished);
    parts.add(builder);
    return parts;
  }

  void consume(Chunk chunk) {
    for (OutputColumn output : outputs) {
      output.evaluate(chunk);
    }
    for (int c = 0; c < outputs.length; c++) {
      if (encoded[c] && !outputs[c].codesFit(builder.encoder(c))) {
        encoded[c] = false; // a large dictionary: this column is decoded from here on, in a new part
        finished.add(builder);
        builder = new TableBuilder(names, types, encoded, allocator).batchRows(batchRows);
        c = -1; // the new part's encoders adopt this chunk's dictionaries afresh
      }
    }
    int selected = chunk.selected();
    for (int done = 0; done < selected; ) {
      int rows = builder.reserveRows(selected - done);
      int at = builder.nextRow();
      for (int c = 0; c < outputs.length; c++) {
        outputs[c].writeSelected(chunk, done, rows, builder, c, at);
      }
      builder.commitRows(rows);
      done += rows;
    }
  }

  @Override
  public void close() {
    finished.forEach(TableBuilder::close);
    builder.close();
  }
}
