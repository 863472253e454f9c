package dev.memwall.core.expr;

/** An expression with the name of the column it produces: {@code expr AS name}. */
public record NamedExpr(Expr expr, String name) {
  public NamedExpr {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("an output column needs a name: " + expr);
    }
  }
}
