package dev.memwall.index.node;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.Placement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Optimistic version stamps (a seqlock per node) for the nodes of one {@link NodePool}, so that
 * one writer and any number of readers can share a tree without locks: node id {@code i}'s 8-byte
 * stamp lives off-heap, eight to a cache line, in a {@link NodePool} of its own that keeps its
 * moved regions (so readers never touch unmapped memory).
 *
 * <p><b>Protocol and memory ordering</b> (as in {@code java.util.concurrent.locks.StampedLock},
 * JCTools and Agrona). The writer calls {@link #beginWrite} before changing a node: a plain store
 * makes the stamp odd, then a {@link VarHandle#storeStoreFence() store-store fence} keeps that
 * store ahead of the node's new bytes. {@link #endWrite} stores the next even stamp with
 * <i>release</i> semantics ({@code setRelease}), so the node's new bytes become visible no later
 * than the stamp. A reader takes {@link #readStamp} (an <i>acquire</i> load, {@code getAcquire};
 * odd means "being changed": retry), reads the node with plain loads, then {@link #validate}
 * issues a {@link VarHandle#loadLoadFence() load-load fence} and compares the stamp again: equal
 * means the bytes it read were one consistent version. What a reader read before a failed
 * validation may be torn; it must only stay inside the node pool's memory and then retry.
 *
 * <p>Ownership: the stamps are charged to the {@link EngineMemory} given at creation; {@link
 * #close()} frees them. Thread safety: {@link #beginWrite}, {@link #endWrite} and {@link #cover}
 * from the single writer thread only; {@link #readStamp} and {@link #validate} from any thread.
 * Bad input: a negative node id throws {@link IndexOutOfBoundsException}.
 */
public final class NodeStamps implements AutoCloseable {
  private static final int PER_LINE = NodePool.LINE_BYTES / Long.BYTES;
  private static final VarHandle STAMP = ValueLayout.JAVA_LONG.varHandle();

  private final NodePool lines;

  /** Stamps (all 0, even) for node ids {@code 0 .. nodes-1}; more with {@link #cover}. */
  public NodeStamps(EngineMemory memory, long nodes, Placement placement) {
    long lineCount = Math.max(1, (nodes + PER_LINE - 1) / PER_LINE);
    this.lines = NodePool.create(memory, NodePool.LINE_BYTES, lineCount, placement, true);
    lines.allocateRun((int) lineCount);
  }

  /** Makes sure node {@code id} has a stamp (writer only); new stamps start at 0. */
  public void cover(int id) {
    int needed = id / PER_LINE + 1;
    if (needed > lines.allocatedNodes()) {
      lines.allocateRun(needed - lines.allocatedNodes());
    }
  }

  /** The stamp region as the writer last published it; compare it in {@link #validate}. */
  public MemorySegment region() {
    return lines.segmentAcquire();
  }

  private static long at(int id) {
    return (long) id * Long.BYTES;
  }

  /** Writer: marks node {@code id} as being changed (odd stamp); {@link #endWrite} must follow. */
  public void beginWrite(int id) {
    MemorySegment s = lines.segment();
    long at = at(id);
    s.set(ValueLayout.JAVA_LONG, at, s.get(ValueLayout.JAVA_LONG, at) + 1);
    VarHandle.storeStoreFence();
  }

  /** Writer: publishes node {@code id}'s change (next even stamp, release store). */
  public void endWrite(int id) {
    MemorySegment s = lines.segment();
    long at = at(id);
    STAMP.setRelease(s, at, s.get(ValueLayout.JAVA_LONG, at) + 1);
  }

  /** Reader: node {@code id}'s stamp in {@code region} (acquire load); odd while it is changed. */
  public static long readStamp(MemorySegment region, int id) {
    return (long) STAMP.getAcquire(region, at(id));
  }

  /**
   * Reader: whether node {@code id} is unchanged since {@code stamp} (even) was read from {@code
   * region} and the stamp region has not moved since.
   */
  public boolean validate(MemorySegment region, int id, long stamp) {
    VarHandle.loadLoadFence();
    return (stamp & 1) == 0 && region == lines.segmentAcquire() && region.get(ValueLayout.JAVA_LONG, at(id)) == stamp;
  }

  /** Bytes reserved for stamps. */
  public long reservedBytes() {
    return lines.reservedBytes();
  }

  @Override
  public void close() {
    lines.close();
  }
}
