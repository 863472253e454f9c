package dev.memwall.join.algorithm;

/**
 * One join algorithm, as the {@link dev.memwall.join.Join} facade runs it: it joins the prepared
 * sides ({@link JoinInput}: both inputs' validated key columns, the join type, the memory to charge)
 * into a sink ({@link JoinOutput}), as its settings record {@code S} says, and returns its own
 * account of the run ({@link Details}) rather than leaving it somewhere to be read afterwards. Every
 * algorithm class exposes its implementation as a constant {@code METHOD}; the facade picks one from
 * the {@link dev.memwall.join.common.JoinAlgorithm} the planner chose and builds its settings from
 * the user's options. The model is a physical join operator of Trino or DuckDB: the operator's
 * configuration is fixed before it runs, the data flows in from the sides and out through the sink.
 *
 * <p>Contract of every implementation:
 * <ul>
 *   <li>{@link #workingBytes} is what the run asks its memory for at most (besides what the
 *       implementation documents, such as heap tables that skew can grow, which it charges itself):
 *       the facade checks it against the budget before any work, so that a join too big for its
 *       budget fails before it allocates;
 *   <li>{@link #run} charges all its working memory to {@link JoinInput#memory()} and frees it before
 *       returning or throwing; the sides are only read; pairs go to the sink, which the caller owns,
 *       flushes and closes (a method that runs on several threads gives each a
 *       {@linkplain JoinOutput#fork fork} of it and absorbs their counts before returning);
 *   <li>settings out of range are refused with {@link IllegalArgumentException} (by the settings
 *       record where it can tell, else by {@link #run}) before any work.
 * </ul>
 *
 * <p>Thread safety: implementations are stateless; one instance serves concurrent runs, each with its
 * own sides, sink and settings.
 *
 * @param <S> the algorithm's settings record ({@link Void} for an algorithm that has none)
 */
public interface JoinMethod<S> {
  /**
   * What a run did beyond emitting its pairs (which the sink counts): an algorithm's own account,
   * such as a spilling join's partitions or the inspector join's inspection. A record of the
   * algorithm's package implements it; {@link NoDetails#NONE} stands for an algorithm that has nothing
   * to add.
   */
  interface Details {}

  /** The details of an algorithm that reports nothing beyond its pairs. */
  enum NoDetails implements Details {
    NONE
  }

  /** The most working memory a run over {@code sides} with {@code settings} asks its memory for. */
  long workingBytes(JoinInput sides, S settings);

  /**
   * Joins {@code sides} into {@code sink}; every buffer it allocated is freed when this returns or
   * throws.
   *
   * @return what the run did; never null
   */
  Details run(JoinInput sides, JoinOutput sink, S settings);
}
