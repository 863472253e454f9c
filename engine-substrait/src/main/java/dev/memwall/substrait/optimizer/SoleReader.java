package dev.memwall.substrait.optimizer;

import dev.memwall.substrait.logical.LogicalRel;
import java.util.HashMap;
import java.util.Map;

/**
 * A shared relation read at one place only is computed there instead: a rewrite after the one that
 * shared it may have replaced its other readers (TPC-H Q20's partsupp rows of the chosen parts,
 * shared with a copy of them in the shipped quantities' reduction, which a later rewrite reduces
 * by the parts alone). Holding its rows would then only cost their copy, and hide its subtrees
 * from {@link CommonSubtrees}, which leaves shared relations alone. Readers are counted once per
 * computation: a shared relation inside another is read once however many read the outer one.
 * Stateless.
 */
public final class SoleReader {
  private SoleReader() {}

  /** {@code rel} with each shared relation that has one reader replaced by its input; the same rows. */
  public static LogicalRel rewrite(LogicalRel rel) {
    Map<Integer, Integer> readers = new HashMap<>();
    count(rel, readers);
    return inline(rel, readers);
  }

  private static void count(LogicalRel rel, Map<Integer, Integer> readers) {
    if (rel instanceof LogicalRel.Shared shared && readers.merge(shared.id(), 1, Integer::sum) > 1) {
      return; // computed once: its inputs' readers were counted the first time
    }
    CommonAggregations.inputs(rel).forEach(input -> count(input, readers));
  }

  private static LogicalRel inline(LogicalRel rel, Map<Integer, Integer> readers) {
    if (rel instanceof LogicalRel.Shared shared && readers.get(shared.id()) == 1) {
      return inline(shared.input(), readers);
    }
    return Rebuild.withInputs(rel, input -> inline(input, readers));
  }
}
