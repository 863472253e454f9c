package dev.memwall.core.temporal;

/**
 * Where a temporal table keeps its entities and their versions: the entity directory (surrogate to
 * a dense entity index in first-append order, and each entity's last append time) and, per entity,
 * {@link #parts} segments, each a run of longs in the layout's format ({@link LayoutKind#parts}:
 * TDSM keeps one segment per attribute, NSM and PSP one per entity). A layout built with {@link
 * TemporalLayout#over} decides what the longs mean; the store only keeps them, on the heap ({@link
 * TemporalLayout#create}) or in pages of a file (engine-index's page-file temporal table). Both
 * answer every query alike, since the same layout code reads them.
 *
 * <p><b>Writing.</b> An append first asks {@link #room} for every segment it will change, then
 * writes the returned arrays and hands each back with {@link #store}. {@code room} is where a store
 * may refuse (a budget, a full file): it must leave the stored versions as they were, so a refused
 * append records nothing. Adding an entity is {@link #prepare} (may refuse, changes nothing visible)
 * and {@link #commit}.
 *
 * <p><b>Reading.</b> {@link #segment} returns an array whose first {@link #length} longs are the
 * segment; the caller must not change it (a heap store returns its own array, a paged store a copy).
 *
 * <p>Thread safety: none; the table's one thread calls it. Use after {@link #close} is refused by
 * the table, not necessarily by the store.
 */
public interface TemporalStore extends AutoCloseable {
  /** Segments per entity. */
  int parts();

  /** Number of entities committed so far. */
  int entities();

  /** The index of {@code surrogate}, or -1 if it has no version. */
  int find(long surrogate);

  /** The surrogate of entity {@code entity}. */
  long surrogate(int entity);

  /** The time of the entity's last append, which the next must exceed. */
  long lastTime(int entity);

  /** Moves the entity's clock to {@code time} (an append that recorded no version). */
  void setLastTime(int entity, long time);

  /** Makes room for one more entity and returns the index it will get; may refuse, changing nothing. */
  int prepare();

  /** Adds {@code surrogate}, absent, at the index {@link #prepare} returned, its clock at {@code time}. */
  void commit(long surrogate, long time);

  /** The segment {@code part} of {@code entity} in its first {@link #length} longs; do not change it. */
  long[] segment(int part, int entity);

  /** Longs in segment {@code part} of {@code entity} (0 for an entity being added). */
  int length(int part, int entity);

  /**
   * An array holding segment {@code part} of {@code entity} with room for {@code minLength} longs,
   * to be written and handed to {@link #store}; may refuse (by a named exception), changing nothing.
   */
  long[] room(int part, int entity, int minLength);

  /** Makes the first {@code length} longs of {@code array}, from {@link #room}, the segment. */
  void store(int part, int entity, long[] array, int length);

  /** Bytes of memory the store holds charged to its {@link dev.memwall.core.memory.EngineMemory}. */
  long chargedBytes();

  /** Gives the store's memory (and files) back; idempotent. */
  @Override
  void close();
}
