package dev.memwall.join.common;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A join index (seed 000's join result): the complete list of (left row id, right row id) pairs
 * of a join, held off-heap in chunks. The pairs come in no particular order.
 *
 * <p>Ownership: the caller owns the index and must {@link #close} it; every chunk is charged to the
 * budget of the {@link EngineMemory} the join ran with. Thread safety: read-only after the join;
 * safe for concurrent readers, not for reading while closing.
 */
public final class JoinIndex implements AutoCloseable {
  /** The right row id of a left row without a partner, and of semi/anti join output. */
  public static final int NO_ROW = -1;

  private final List<OffHeapBuffer> buffers = new ArrayList<>();
  private final List<PairChunk> chunks = new ArrayList<>();
  private long size;
  private boolean closed;

  JoinIndex() {}

  /**
   * Collects a join's result: runs {@code join} with a consumer that copies each chunk it streams
   * into a new index, charged to {@code memory}, and returns the index, owned by the caller. If
   * {@code join} throws, the partial index is closed and the exception rethrown.
   */
  public static JoinIndex collect(EngineMemory memory, Consumer<Consumer<PairChunk>> join) {
    JoinIndex index = new JoinIndex();
    try {
      join.accept(index.collector(memory));
      return index;
    } catch (RuntimeException | Error e) {
      index.close();
      throw e;
    }
  }

  /** A consumer that copies each streamed chunk into this index. */
  Consumer<PairChunk> collector(EngineMemory memory) {
    return chunk -> {
      long bytes = (long) chunk.size() * Integer.BYTES;
      OffHeapBuffer buffer = memory.allocate(2 * bytes);
      buffers.add(buffer);
      MemorySegment left = buffer.segment().asSlice(0, bytes);
      MemorySegment right = buffer.segment().asSlice(bytes, bytes);
      left.copyFrom(chunk.leftRows());
      right.copyFrom(chunk.rightRows());
      chunks.add(new PairChunk(left, right, chunk.size()));
      size += chunk.size();
    };
  }

  /** Number of pairs. */
  public long size() {
    return size;
  }

  /** The chunks, in the order the join produced them. */
  public List<PairChunk> chunks() {
    if (closed) {
      throw new IllegalStateException("join index is closed");
    }
    return List.copyOf(chunks);
  }

  /** Frees every chunk; idempotent. */
  @Override
  public void close() {
    closed = true;
    buffers.forEach(OffHeapBuffer::close);
    buffers.clear();
    chunks.clear();
  }
}
