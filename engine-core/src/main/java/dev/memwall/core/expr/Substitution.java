package dev.memwall.core.expr;

import java.util.Map;
import java.util.function.Function;

/**
 * Substitutes names by expressions: how a plan resolves the names its projections define in the
 * expressions after them. Thread safety: stateless.
 */
public final class Substitution {
  private Substitution() {}

  /**
   * {@code expr} with every reference to a name of {@code aliases} replaced by that name's expression
   * (one level: the expressions are taken as they are).
   */
  public static Expr apply(Expr expr, Map<String, Expr> aliases) {
    if (aliases.isEmpty()) {
      return expr;
    }
    Function<Expr, Expr> r = e -> apply(e, aliases);
    return switch (expr) {
      case Expr.ColumnRef ref -> aliases.getOrDefault(ref.name(), ref);
      case Expr.Literal literal -> literal;
      case Expr.Arithmetic a -> new Expr.Arithmetic(a.op(), r.apply(a.left()), r.apply(a.right()));
      case Expr.Comparison c -> new Expr.Comparison(c.op(), r.apply(c.left()), r.apply(c.right()));
      case Expr.And and -> new Expr.And(and.operands().stream().map(r).toList());
      case Expr.Or or -> new Expr.Or(or.operands().stream().map(r).toList());
      case Expr.Not not -> new Expr.Not(r.apply(not.operand()));
      case Expr.Like like -> new Expr.Like(r.apply(like.input()), like.pattern());
      case Expr.InList in -> new Expr.InList(r.apply(in.input()), in.values());
      case Expr.Case c -> new Expr.Case(r.apply(c.condition()), r.apply(c.then()), r.apply(c.otherwise()));
      case Expr.ExtractYear y -> new Expr.ExtractYear(r.apply(y.date()));
      case Expr.IsNull test -> new Expr.IsNull(r.apply(test.input()));
      case Expr.Substring sub -> new Expr.Substring(r.apply(sub.input()), sub.start(), sub.length());
      case Expr.Cast cast -> new Expr.Cast(r.apply(cast.input()), cast.type());
    };
  }
}
