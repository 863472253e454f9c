package dev.memwall.substrait.logical;

import dev.memwall.core.expr.Expr;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What the logical plan needs to know about memwall expressions: the columns they read, their conjuncts, renaming. */
public final class Exprs {
  private Exprs() {}

  /** The names of the columns {@code expr} reads. */
  public static Set<String> columns(Expr expr) {
    Set<String> names = new LinkedHashSet<>();
    collect(expr, names);
    return names;
  }

  private static void collect(Expr expr, Set<String> names) {
    switch (expr) {
      case Expr.ColumnRef ref -> names.add(ref.name());
      case Expr.Literal literal -> { }
      case Expr.Arithmetic a -> {
        collect(a.left(), names);
        collect(a.right(), names);
      }
      case Expr.Comparison c -> {
        collect(c.left(), names);
        collect(c.right(), names);
      }
      case Expr.And and -> and.operands().forEach(operand -> collect(operand, names));
      case Expr.Or or -> or.operands().forEach(operand -> collect(operand, names));
      case Expr.Not not -> collect(not.operand(), names);
      case Expr.Like like -> collect(like.input(), names);
      case Expr.InList in -> collect(in.input(), names);
      case Expr.IsNull isNull -> collect(isNull.input(), names);
      case Expr.Case c -> {
        collect(c.condition(), names);
        collect(c.then(), names);
        collect(c.otherwise(), names);
      }
      case Expr.ExtractYear year -> collect(year.date(), names);
      case Expr.Cast cast -> collect(cast.input(), names);
      case Expr.Substring substring -> collect(substring.input(), names);
    }
  }

  /** The operands of {@code predicate}'s top-level ANDs, nested ones flattened; the predicate itself otherwise. */
  public static List<Expr> conjuncts(Expr predicate) {
    List<Expr> parts = new ArrayList<>();
    if (predicate instanceof Expr.And and) {
      and.operands().forEach(operand -> parts.addAll(conjuncts(operand)));
    } else {
      parts.add(predicate);
    }
    return parts;
  }

  /** The AND of {@code parts} (one part: itself). */
  public static Expr and(List<Expr> parts) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("an AND of no operands");
    }
    return parts.size() == 1 ? parts.getFirst() : new Expr.And(List.copyOf(parts));
  }

  /** {@code expr} reading {@code names}' values for the columns it maps (others as they are). */
  public static Expr renamed(Expr expr, Map<String, String> names) {
    return switch (expr) {
      case Expr.ColumnRef ref -> Expr.col(names.getOrDefault(ref.name(), ref.name()));
      case Expr.Literal literal -> literal;
      case Expr.Arithmetic a -> new Expr.Arithmetic(a.op(), renamed(a.left(), names), renamed(a.right(), names));
      case Expr.Comparison c -> new Expr.Comparison(c.op(), renamed(c.left(), names), renamed(c.right(), names));
      case Expr.And and -> new Expr.And(and.operands().stream().map(e -> renamed(e, names)).toList());
      case Expr.Or or -> new Expr.Or(or.operands().stream().map(e -> renamed(e, names)).toList());
      case Expr.Not not -> new Expr.Not(renamed(not.operand(), names));
      case Expr.Like like -> new Expr.Like(renamed(like.input(), names), like.pattern());
      case Expr.InList in -> new Expr.InList(renamed(in.input(), names), in.values());
      case Expr.IsNull isNull -> new Expr.IsNull(renamed(isNull.input(), names));
      case Expr.Case c -> new Expr.Case(renamed(c.condition(), names), renamed(c.then(), names),
          renamed(c.otherwise(), names));
      case Expr.ExtractYear year -> new Expr.ExtractYear(renamed(year.date(), names));
      case Expr.Cast cast -> new Expr.Cast(renamed(cast.input(), names), cast.type());
      case Expr.Substring substring -> new Expr.Substring(renamed(substring.input(), names), substring.start(),
          substring.length());
    };
  }
}
