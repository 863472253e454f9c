package dev.memwall.index.node;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.OffHeapBuffer;
import dev.memwall.core.memory.Placement;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Fixed-size, cache-line aligned nodes in one large off-heap region, addressed by {@code int}
 * node ids: node {@code id} lives at byte offset {@code id * nodeBytes} of {@link #segment()}.
 *
 * <p>The region is one {@link OffHeapBuffer} (huge pages when asked for and available) charged to
 * the {@link EngineMemory}'s budget. When it is full, {@link #allocate()} moves every node into a
 * region twice as large: node ids stay valid, but a {@link MemorySegment} obtained before the
 * move does not, so callers read {@link #segment()} again after allocating. Nodes are handed out
 * zeroed and are never freed one by one: the pool is released as a whole by {@link #close()}.
 *
 * <p>Thread safety: none of its own; a tree serializes its writers and documents what its readers
 * may do. For optimistic readers that run while the single writer allocates, a pool created with
 * {@code keepMovedRegions} keeps every region it moved away from (still charged to the budget, at
 * most as large as the current region together) until {@link #close()}, so a reader still holding
 * an old segment reads stale but mapped memory; the writer publishes each new region with release
 * semantics and {@link #segmentAcquire()} reads it with acquire semantics.
 *
 * <p>Bad input: a node size that is not a positive multiple of 64 bytes, or growth beyond
 * {@link Integer#MAX_VALUE} nodes, is refused with {@link IllegalArgumentException} or
 * {@link IllegalStateException}; a budget too small gives the budget's exception and leaves the
 * pool as it was.
 */
public final class NodePool implements AutoCloseable {
  /** The cache line size every node is a multiple of. */
  public static final int LINE_BYTES = 64;

  private final EngineMemory memory;
  private final int nodeBytes;
  private static final VarHandle SEGMENT;

  static {
    try {
      SEGMENT = MethodHandles.lookup().findVarHandle(NodePool.class, "segment", MemorySegment.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Placement placement;
  /** Regions moved away from, freed at close; null when they are freed at once. */
  private final List<OffHeapBuffer> moved;
  private OffHeapBuffer buffer;
  private MemorySegment segment;
  private int capacity;
  private int allocated;

  private NodePool(EngineMemory memory, int nodeBytes, int capacity, Placement placement, boolean keepMoved) {
    this.memory = memory;
    this.nodeBytes = nodeBytes;
    this.placement = placement;
    this.moved = keepMoved ? new ArrayList<>() : null;
    this.capacity = capacity;
    this.buffer = memory.allocate((long) capacity * nodeBytes, placement);
    this.segment = buffer.segment();
  }

  /**
   * A pool of nodes of {@code nodeBytes} with room for {@code initialNodes} before it first grows.
   *
   * @throws IllegalArgumentException if {@code nodeBytes} is not a positive multiple of
   *     {@value #LINE_BYTES} or {@code initialNodes} is outside 1 .. {@link Integer#MAX_VALUE}
   */
  public static NodePool create(EngineMemory memory, int nodeBytes, long initialNodes, Placement placement) {
    return create(memory, nodeBytes, initialNodes, placement, false);
  }

  /**
   * As {@link #create(EngineMemory, int, long, Placement)}; with {@code keepMovedRegions} the
   * regions the pool grows out of stay mapped until {@link #close()} (see the class comment).
   */
  public static NodePool create(EngineMemory memory, int nodeBytes, long initialNodes, Placement placement,
      boolean keepMovedRegions) {
    if (nodeBytes <= 0 || nodeBytes % LINE_BYTES != 0) {
      throw new IllegalArgumentException("node size must be a positive multiple of " + LINE_BYTES
          + " bytes, got " + nodeBytes);
    }
    if (initialNodes < 1 || initialNodes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("initial node count must be in 1 .. " + Integer.MAX_VALUE
          + ", got " + initialNodes);
    }
    return new NodePool(memory, nodeBytes, (int) initialNodes, placement, keepMovedRegions);
  }

  /** The id of a fresh zeroed node; may move the region (see the class comment). */
  public int allocate() {
    if (allocated == capacity) {
      grow();
    }
    return allocated++;
  }

  /** Ids of {@code count} consecutive fresh zeroed nodes, the first one returned. */
  public int allocateRun(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("negative node count " + count);
    }
    while ((long) allocated + count > capacity) {
      grow();
    }
    int first = allocated;
    allocated += count;
    return first;
  }

  private void grow() {
    if (capacity == Integer.MAX_VALUE) {
      throw new IllegalStateException("node pool full: " + capacity + " nodes of " + nodeBytes + " bytes");
    }
    int larger = (int) Math.min(Integer.MAX_VALUE, Math.max(16L, 2L * capacity));
    OffHeapBuffer bigger = memory.allocate((long) larger * nodeBytes, placement);
    bigger.segment().copyFrom(segment.asSlice(0, (long) allocated * nodeBytes));
    if (moved == null) {
      buffer.close();
    } else {
      moved.add(buffer);
    }
    buffer = bigger;
    SEGMENT.setRelease(this, bigger.segment()); // the copied nodes before the new region's reference
    capacity = larger;
  }

  /** The region holding every node; re-read it after {@link #allocate()}. */
  public MemorySegment segment() {
    return segment;
  }

  /**
   * The current region read with acquire semantics: for a thread other than the writer, which
   * then sees every node the writer copied into it.
   */
  public MemorySegment segmentAcquire() {
    return (MemorySegment) SEGMENT.getAcquire(this);
  }

  /** The byte offset of node {@code id} in {@link #segment()}. */
  public long offset(int id) {
    return (long) id * nodeBytes;
  }

  public int nodeBytes() {
    return nodeBytes;
  }

  /** Nodes handed out so far (ids 0 .. allocatedNodes - 1). */
  public int allocatedNodes() {
    return allocated;
  }

  /** Bytes of the region, whether handed out or not. */
  public long reservedBytes() {
    return buffer.byteSize();
  }

  /** Whether the region is backed by huge pages. */
  public boolean hugePages() {
    return buffer.hugePages();
  }

  /** Frees the region (and any kept moved regions); idempotent. */
  @Override
  public void close() {
    if (moved != null) {
      moved.forEach(OffHeapBuffer::close);
      moved.clear();
    }
    buffer.close();
  }
}
