package dev.memwall.core.vector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Record batches that arrive one at a time and are read once: what a streaming scan consumes
 * ({@code Plan.scan(BatchStream)}) without the batches ever being held all at once.
 *
 * <p>Ownership: each batch {@link #next} returns is the caller's to close (the scan closes it as
 * soon as its rows have passed through the pipeline). The stream's dictionaries stay the stream's
 * and must stay valid until it is closed; closing the stream closes what it wraps.
 *
 * <p>Thread safety: {@link #next} is called by one thread at a time (the scan serialises it).
 * Bad input: a batch whose schema differs from {@link #schema} is refused with an
 * {@link IllegalArgumentException} naming both.
 */
public interface BatchStream extends AutoCloseable {
  /** The schema of every batch, known before the first. */
  Schema schema();

  /** Resolves the dictionary-encoded columns' dictionaries; null when no column is encoded. */
  DictionaryProvider dictionaries();

  /**
   * The next batch, now owned by the caller, or null at the end of the stream.
   *
   * @throws UncheckedIOException when the underlying source fails to read
   */
  VectorSchemaRoot next();

  /** Releases the source; batches already handed out stay valid. */
  @Override
  void close();

  /**
   * The batches of a host's {@link ArrowReader} (an IPC stream, a C Data stream, a Dataset scan):
   * each loaded batch's buffers are transferred, without copying, out of the reader's reused root
   * into a root of their own. The reader's dictionaries are used as they are. Closing the stream
   * closes the reader.
   */
  static BatchStream of(ArrowReader reader) {
    Objects.requireNonNull(reader, "reader");
    Schema schema;
    try {
      schema = reader.getVectorSchemaRoot().getSchema();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the stream's schema", e);
    }
    return new BatchStream() {
      @Override
      public Schema schema() {
        return schema;
      }

      @Override
      public DictionaryProvider dictionaries() {
        return reader;
      }

      @Override
      public VectorSchemaRoot next() {
        try {
          if (!reader.loadNextBatch()) {
            return null;
          }
          return transferOut(reader.getVectorSchemaRoot());
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read the next batch of the stream", e);
        }
      }

      @Override
      public void close() {
        try {
          reader.close();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot close the stream", e);
        }
      }
    };
  }

  /**
   * The batches {@code batches} returns, each of which the scan then owns and closes; the iterator
   * must not return a root it reuses. {@code dictionaries} (null when no column is encoded) stay the
   * caller's.
   */
  static BatchStream of(Schema schema, Iterator<VectorSchemaRoot> batches, DictionaryProvider dictionaries) {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(batches, "batches");
    return new BatchStream() {
      private int index;

      @Override
      public Schema schema() {
        return schema;
      }

      @Override
      public DictionaryProvider dictionaries() {
        return dictionaries;
      }

      @Override
      public VectorSchemaRoot next() {
        if (!batches.hasNext()) {
          return null;
        }
        VectorSchemaRoot root = batches.next();
        if (!root.getSchema().equals(schema)) {
          root.close();
          throw new IllegalArgumentException("batch " + index + " of the stream has schema " + root.getSchema()
              + ", not the stream's " + schema);
        }
        index++;
        return root;
      }

      @Override
      public void close() {}
    };
  }

  /** A root owning {@code reused}'s buffers, which is left empty (with the same schema) for the next load. */
  private static VectorSchemaRoot transferOut(VectorSchemaRoot reused) {
    List<FieldVector> vectors = new ArrayList<>(reused.getFieldVectors().size());
    for (FieldVector vector : reused.getFieldVectors()) {
      var transfer = vector.getTransferPair(vector.getAllocator());
      transfer.transfer();
      vectors.add((FieldVector) transfer.getTo());
    }
    VectorSchemaRoot owned = new VectorSchemaRoot(reused.getSchema().getFields(), vectors, reused.getRowCount());
    reused.setRowCount(0);
    return owned;
  }
}
