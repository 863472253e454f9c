package dev.memwall.core.temporal;

import dev.memwall.core.memory.EngineMemory;
import java.util.List;

/**
 * A temporal table in memory: entities named by a long surrogate, each a sequence of versions
 * (a time and {@link #attributes} long values), kept in one of the {@link LayoutKind layouts} of
 * Jouini and Jomier (DaMoN 2008). Every layout answers every query with the same result; they
 * differ in what the query reads ({@link #lastQueryBytes}) and what an append moves.
 *
 * <p><b>Versions.</b> An entity's appends come in strictly increasing time ({@link
 * TemporalOrderException} otherwise); different entities interleave freely. An append whose values
 * equal the entity's current ones records no version (the state did not change) but still moves the
 * entity's clock, so the next append must be later. {@link Long#MAX_VALUE} is not a version time:
 * it is {@link ValidValue#OPEN}, the end of every current value's validity. Any long is a value or a
 * surrogate.
 *
 * <p><b>Memory.</b> The versions live in the table's {@link TemporalStore}: for {@link #create},
 * heap arrays charged to the {@link EngineMemory} the layout was created with until {@link #close};
 * an append the budget refuses throws {@link dev.memwall.core.memory.BudgetExceededException} naming
 * {@value #OPERATOR} and records nothing. A store of another kind ({@link #over}) refuses by its own
 * named exception, also recording nothing.
 * Thread safety: none; one thread appends and queries, or callers synchronize. Use after close
 * throws {@link IllegalStateException}.
 */
public interface TemporalLayout extends AutoCloseable {
  /** The name a refused append gives in its {@link dev.memwall.core.memory.BudgetExceededException}. */
  String OPERATOR = "temporal layout";

  /** An empty table of {@code attributes} long attributes (at least 1) in layout {@code kind}. */
  static TemporalLayout create(LayoutKind kind, EngineMemory memory, int attributes) {
    checkAttributes(attributes);
    return over(kind, new HeapStore(memory, kind.parts(attributes)), attributes);
  }

  /**
   * A table of {@code attributes} long attributes in layout {@code kind} over {@code store}, which
   * it owns from now on (closing the table closes the store): the same layout code as {@link
   * #create}, over another store, such as pages of a file. The store may hold entities already.
   *
   * @throws IllegalArgumentException if {@code attributes < 1} or the store has not {@link
   *     LayoutKind#parts} parts
   */
  static TemporalLayout over(LayoutKind kind, TemporalStore store, int attributes) {
    checkAttributes(attributes);
    return switch (kind) {
      case NSM -> new NsmLayout(store, attributes);
      case TDSM -> new TdsmLayout(store, attributes);
      case PSP -> new PspLayout(store, attributes);
    };
  }

  private static void checkAttributes(int attributes) {
    if (attributes < 1) {
      throw new IllegalArgumentException("a temporal table needs at least one attribute, not " + attributes);
    }
  }

  /** The layout this table keeps its versions in. */
  LayoutKind kind();

  /** Number of attributes of every version. */
  int attributes();

  /** Number of entities appended so far. */
  int entities();

  /**
   * Records {@code values} (exactly {@link #attributes} of them) as the state of {@code surrogate}
   * from {@code time} on.
   *
   * @throws TemporalOrderException if the entity's last append is not earlier than {@code time}
   * @throws IllegalArgumentException if {@code time} is {@link Long#MAX_VALUE} or the number of
   *     values is wrong
   */
  void append(long surrogate, long time, long... values);

  /** Every version of {@code surrogate} in time order; empty for an unknown surrogate. */
  List<Version> history(long surrogate);

  /** The state of every entity at {@code time}. */
  Snapshot snapshot(long time);

  /**
   * The values {@code attribute} of {@code surrogate} took, each once per run of versions holding
   * it, with its validity; empty for an unknown surrogate.
   *
   * @throws IndexOutOfBoundsException if {@code attribute} is not an attribute
   */
  List<ValidValue> attributeHistory(long surrogate, int attribute);

  /**
   * Turns on or off counting the cache lines each query reads from the layout's version arrays (the
   * entity directory, common to all layouts, is not counted). Off by default.
   */
  void countTraffic(boolean on);

  /** Bytes, in whole 64-byte lines, the last query read while counting was on; 0 when it was off. */
  long lastQueryBytes();

  /** Bytes of heap this table holds charged, its arrays' capacity. */
  long chargedBytes();

  /** Gives the table's memory back; idempotent. */
  @Override
  void close();
}
