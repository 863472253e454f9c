package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.substrait.logical.Exprs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Single-input filters implied by an OR over several join inputs: {@code (n1 = 'FRANCE' and n2 =
 * 'GERMANY') or (n1 = 'GERMANY' and n2 = 'FRANCE')} implies {@code n1 in ('FRANCE', 'GERMANY')} on
 * the first nation's input and the like on the second's. For each input, when every operand of the
 * OR has conjuncts reading only that input, the OR of those conjuncts (each operand's AND) is
 * implied: a row the OR keeps is kept by one operand, all of whose conjuncts are true, those on the
 * input among them. Filtering the input by it first drops only rows the OR drops; the OR itself
 * still applies after the join, so the result is the same, nulls included (a null conjunct fails
 * the operand either way). The implied OR's string equalities are taken as IN lists ({@link InLists})
 * and its ranges of one column merged ({@link RangeUnions}).
 *
 * <p>Stateless and thread-safe.
 */
public final class DisjunctionPushdown {
  private DisjunctionPushdown() {}

  /**
   * The filters {@code conjunct} implies on single inputs, by input: {@code owner} maps each column
   * to its input. Empty unless {@code conjunct} is an OR over two or more inputs; an input some
   * operand says nothing about on its own gets none.
   */
  public static Map<Integer, Expr> implied(Expr conjunct, Map<String, Integer> owner) {
    Map<Integer, Expr> implied = new LinkedHashMap<>();
    if (!(conjunct instanceof Expr.Or or)) {
      return implied;
    }
    Set<Integer> inputs = inputs(conjunct, owner);
    if (inputs.size() < 2) {
      return implied;
    }
    for (int input : inputs) {
      if (input < 0) {
        continue;
      }
      List<Expr> branches = new ArrayList<>();
      for (Expr operand : or.operands()) {
        List<Expr> local = new ArrayList<>();
        for (Expr part : Exprs.conjuncts(operand)) {
          if (inputs(part, owner).equals(Set.of(input))) {
            local.add(part);
          }
        }
        if (local.isEmpty()) {
          branches = null;
          break;
        }
        Expr branch = Exprs.and(local);
        if (!branches.contains(branch)) {
          branches.add(branch);
        }
      }
      if (branches != null) {
        implied.put(input, RangeUnions.of(InLists.of(branches.size() == 1 ? branches.getFirst()
            : new Expr.Or(List.copyOf(branches)))));
      }
    }
    return implied;
  }

  /** The inputs whose columns {@code expr} reads; a column of no input counts as input -1. */
  private static Set<Integer> inputs(Expr expr, Map<String, Integer> owner) {
    Set<Integer> inputs = new LinkedHashSet<>();
    for (String column : Exprs.columns(expr)) {
      Integer input = owner.get(column);
      inputs.add(input == null ? -1 : input);
    }
    return inputs;
  }
}
