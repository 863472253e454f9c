package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.substrait.logical.Exprs;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * What the keys declared for a plan's tables say about the columns of any of its relations: which
 * columns a set of columns determines (functional dependencies), and whether no two rows agree on a
 * set of columns (uniqueness). A declared key is taken as unique and never null (see
 * {@code Catalog.declareKey}); everything is derived from the keys a scan reads in full.
 *
 * <p>Dependencies hold through filters, sorts, limits and every join (a null-extended row has all of
 * the optional side's columns null, its key included, so it agrees with no real row on that key);
 * an inner join's key pair determine each other, a left outer join's preserved key its partner. A
 * project carries what its passed-on columns determine to each output computed from them. An
 * aggregation's keys determine all its columns. The answers are conservative: a dependency or
 * uniqueness not derived this way is reported as absent, which only leaves a rewrite undone.
 * Stateless apart from the key lookup; thread-safe when that is.
 */
final class KeyDependencies {
  /** {@code determinant} determines {@code dependents}: rows agreeing on the one agree on the other. */
  record Dependency(Set<String> determinant, Set<String> dependents) {}

  private final Function<LogicalRel.Scan, List<List<String>>> keys;

  /** @param keys the keys declared for a scan's table, as lists of the table's column names */
  KeyDependencies(Function<LogicalRel.Scan, List<List<String>>> keys) {
    this.keys = keys;
  }

  /** The columns of {@code rel} that {@code columns} determine, {@code columns} included. */
  Set<String> closure(LogicalRel rel, Set<String> columns) {
    return closure(dependencies(rel), columns);
  }

  private static Set<String> closure(List<Dependency> dependencies, Set<String> columns) {
    Set<String> closed = new HashSet<>(columns);
    boolean grew = true;
    while (grew) {
      grew = false;
      for (Dependency dependency : dependencies) {
        if (closed.containsAll(dependency.determinant()) && closed.addAll(dependency.dependents())) {
          grew = true;
        }
      }
    }
    return closed;
  }

  /** Whether no two rows of {@code rel} agree on all of {@code columns} (nulls compared as equal). */
  boolean unique(LogicalRel rel, Set<String> columns) {
    Set<String> closed = closure(rel, columns);
    return switch (rel) {
      case LogicalRel.Scan scan -> keys(scan).stream().anyMatch(closed::containsAll);
      case LogicalRel.Filter filter -> unique(filter.input(), closed);
      case LogicalRel.Sort sort -> unique(sort.input(), closed);
      case LogicalRel.Limit limit -> unique(limit.input(), closed);
      case LogicalRel.Project project -> unique(project.input(), passedOn(project, closed));
      case LogicalRel.Aggregation a -> closed.containsAll(a.keys().stream().map(NamedExpr::name).toList());
      case LogicalRel.Join join -> switch (join.kind()) {
        case SEMI, ANTI -> unique(join.left(), closed);
        case INNER, LEFT_OUTER -> {
          boolean left = unique(join.left(), closed);
          boolean right = unique(join.right(), closed);
          yield left && (right || unique(join.right(), new HashSet<>(join.rightKeys())))
              || join.kind() == JoinKind.INNER && right && unique(join.left(), new HashSet<>(join.leftKeys()));
        }
      };
      case LogicalRel.Cross cross -> unique(cross.left(), closed) && unique(cross.right(), closed);
      case LogicalRel.Shared shared -> unique(shared.input(), closed);
    };
  }

  /** The input columns that {@code project} passes on under names among {@code outputs}. */
  private static Set<String> passedOn(LogicalRel.Project project, Set<String> outputs) {
    Set<String> inputs = new HashSet<>();
    for (NamedExpr output : project.outputs()) {
      if (output.expr() instanceof Expr.ColumnRef ref && outputs.contains(output.name())) {
        inputs.add(ref.name());
      }
    }
    return inputs;
  }

  /** The dependencies that hold in {@code rel}. */
  List<Dependency> dependencies(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Scan scan -> {
        List<Dependency> found = new ArrayList<>();
        keys(scan).forEach(key -> found.add(new Dependency(key, new LinkedHashSet<>(scan.columns()))));
        yield found;
      }
      case LogicalRel.Filter filter -> dependencies(filter.input());
      case LogicalRel.Sort sort -> dependencies(sort.input());
      case LogicalRel.Limit limit -> dependencies(limit.input());
      case LogicalRel.Project project -> project(project);
      case LogicalRel.Aggregation a -> List.of(new Dependency(
          new LinkedHashSet<>(a.keys().stream().map(NamedExpr::name).toList()), new LinkedHashSet<>(a.columns())));
      case LogicalRel.Join join -> {
        List<Dependency> found = new ArrayList<>(dependencies(join.left()));
        if (join.kind() == JoinKind.INNER || join.kind() == JoinKind.LEFT_OUTER) {
          found.addAll(dependencies(join.right()));
          for (int i = 0; i < join.leftKeys().size(); i++) {
            String left = join.leftKeys().get(i);
            String right = join.rightKeys().get(i);
            found.add(new Dependency(Set.of(left), Set.of(right)));
            if (join.kind() == JoinKind.INNER) {
              found.add(new Dependency(Set.of(right), Set.of(left)));
            }
          }
        }
        yield found;
      }
      case LogicalRel.Cross cross -> {
        List<Dependency> found = new ArrayList<>(dependencies(cross.left()));
        found.addAll(dependencies(cross.right()));
        yield found;
      }
      case LogicalRel.Shared shared -> dependencies(shared.input());
    };
  }

  /** A project's dependencies: each of its input's whose determinant it passes on, over its outputs. */
  private List<Dependency> project(LogicalRel.Project project) {
    List<Dependency> below = dependencies(project.input());
    Map<String, String> output = new HashMap<>(); // input column -> an output passing it on
    for (NamedExpr out : project.outputs()) {
      if (out.expr() instanceof Expr.ColumnRef ref) {
        output.putIfAbsent(ref.name(), out.name());
      }
    }
    List<Dependency> found = new ArrayList<>();
    for (Dependency dependency : below) {
      if (!output.keySet().containsAll(dependency.determinant())) {
        continue;
      }
      Set<String> determined = closure(below, dependency.determinant());
      Set<String> determinant = new LinkedHashSet<>();
      dependency.determinant().forEach(column -> determinant.add(output.get(column)));
      Set<String> dependents = new LinkedHashSet<>();
      for (NamedExpr out : project.outputs()) {
        if (determined.containsAll(Exprs.columns(out.expr()))) {
          dependents.add(out.name());
        }
      }
      found.add(new Dependency(determinant, dependents));
    }
    return found;
  }

  /** The declared keys of {@code scan}'s table that it reads in full, as its column names. */
  private Set<Set<String>> keys(LogicalRel.Scan scan) {
    Set<Set<String>> found = new LinkedHashSet<>();
    for (List<String> key : keys.apply(scan)) {
      Set<String> named = new LinkedHashSet<>();
      for (String column : key) {
        int at = scan.tableColumns().indexOf(column);
        if (at < 0) {
          named = null;
          break;
        }
        named.add(scan.columns().get(at));
      }
      if (named != null) {
        found.add(named);
      }
    }
    return found;
  }
}
