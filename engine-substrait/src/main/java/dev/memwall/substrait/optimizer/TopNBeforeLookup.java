package dev.memwall.substrait.optimizer;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.SortKey;
import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * A top-N taken before a join that extends each row of one side exactly once: TPC-H Q10 orders its
 * sums per {@code o_custkey} by revenue and keeps 20, after joining customer (on its key, which every
 * {@code o_custkey} references) and nation; the 20 largest sums are the same before that join, so
 * only 20 rows meet customer:
 *
 * <pre>
 * limit n                        =&gt;   limit n
 *   sort K                               sort K
 *     [projects]                           [projects]
 *       join I, L on F = U                   join L, (limit n (sort K' I)) on U = F
 * </pre>
 *
 * <p>It applies when the join gives each row of the input side I exactly one row: the lookup side
 * L is unique on U ({@code KeyDependencies}), and either the join is a left outer join preserving
 * I, or it is an inner join where F is a declared {@link ForeignKey} of one table read by I and L
 * holds every row of the referenced table exactly once, with U that table's key. L holds every row
 * of a table when it is that table's scan, possibly projected or sorted, or joined (inner, on such
 * a foreign key of the table, or left outer) to further lookups of that kind: customer joined to
 * nation. F's values in I must come unchanged from the referencing table's columns, all from one
 * read of it (through filters, sorts, limits, passed-on columns, grouping keys and either side of
 * an inner join, not the optional side of an outer one), since the declared key is a property of its
 * rows. The sort keys K must be columns of I, passed on by name through the projects (K'). Then the
 * join maps I's rows one to one, so the first n rows of its result by K are the joins of the first
 * n rows of I by K; where K ties, the rows kept among the tied ones are any, as for the original.
 *
 * <p>An inner join's limited side becomes its build side when it has fewer rows than the table L
 * reads, and is joined to that table before the further lookups, so that the table probes n rows
 * and only the matches meet the others. The limited input is tried again. Nothing else is changed.
 * Stateless and thread-safe.
 */
public final class TopNBeforeLookup {
  private final KeyDependencies dependencies;
  private final Function<LogicalRel.Scan, List<ForeignKey>> foreignKeys;

  private TopNBeforeLookup(KeyDependencies dependencies, Function<LogicalRel.Scan, List<ForeignKey>> foreignKeys) {
    this.dependencies = dependencies;
    this.foreignKeys = foreignKeys;
  }

  /**
   * {@code rel} with each top-N of that shape, at any depth, taken before the join; the same rows,
   * up to the choice among rows tied on the sort keys.
   *
   * @param keys the keys declared for a scan's table (lists of the table's column names)
   * @param foreignKeys the foreign keys declared for a scan's table
   */
  public static LogicalRel rewrite(LogicalRel rel, Function<LogicalRel.Scan, List<List<String>>> keys,
      Function<LogicalRel.Scan, List<ForeignKey>> foreignKeys) {
    TopNBeforeLookup rewrite = new TopNBeforeLookup(new KeyDependencies(keys), foreignKeys);
    return Rebuild.eachNode(rel, node -> node instanceof LogicalRel.Limit limit ? rewrite.push(limit) : node);
  }

  private LogicalRel push(LogicalRel.Limit limit) {
    if (!(limit.input() instanceof LogicalRel.Sort sort)) {
      return limit;
    }
    List<LogicalRel.Project> projects = new ArrayList<>();
    List<String> sortColumns = sort.keys().stream().map(SortKey::column).toList();
    LogicalRel below = sort.input();
    while (below instanceof LogicalRel.Project project) {
      sortColumns = passedOn(project, sortColumns);
      if (sortColumns == null) {
        return limit;
      }
      projects.add(project);
      below = project.input();
    }
    if (!(below instanceof LogicalRel.Join join) || join.kind() != JoinKind.INNER && join.kind() != JoinKind.LEFT_OUTER) {
      return limit;
    }
    LogicalRel pushed = null;
    if (join.left().columns().containsAll(sortColumns)
        && extendsOnce(join.kind(), join.left(), join.right(), join.leftKeys(), join.rightKeys())) {
      pushed = joinLimited(join.kind(), topN(limit, sort, sortColumns, join.left()), join.right(),
          join.leftKeys(), join.rightKeys());
    } else if (join.kind() == JoinKind.INNER && join.right().columns().containsAll(sortColumns)
        && extendsOnce(JoinKind.INNER, join.right(), join.left(), join.rightKeys(), join.leftKeys())) {
      pushed = joinLimited(JoinKind.INNER, topN(limit, sort, sortColumns, join.right()), join.left(),
          join.rightKeys(), join.leftKeys());
    }
    if (pushed == null) {
      return limit;
    }
    for (int i = projects.size() - 1; i >= 0; i--) {
      pushed = new LogicalRel.Project(pushed, projects.get(i).outputs());
    }
    return new LogicalRel.Limit(new LogicalRel.Sort(pushed, sort.keys()), limit.rows());
  }

  /** The sort's first rows of {@code input}, by its keys renamed to {@code columns}, pushed further where it can be. */
  private LogicalRel topN(LogicalRel.Limit limit, LogicalRel.Sort sort, List<String> columns, LogicalRel input) {
    List<SortKey> keys = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      SortKey key = sort.keys().get(i);
      keys.add(new SortKey(columns.get(i), key.descending(), key.nullsFirst()));
    }
    return push(new LogicalRel.Limit(new LogicalRel.Sort(input, keys), limit.rows()));
  }

  /**
   * The limited input joined to the lookup: a left outer join keeps it the preserved side; an inner
   * join builds it where it is the smaller, joined to the lookup's table before the lookup's others.
   */
  private LogicalRel joinLimited(JoinKind kind, LogicalRel limited, LogicalRel lookup, List<String> inputKeys,
      List<String> lookupKeys) {
    LogicalRel.Scan table = wholeTable(lookup);
    if (kind == JoinKind.LEFT_OUTER || table == null || ((LogicalRel.Limit) limited).rows() >= table.source().rowCount()) {
      return new LogicalRel.Join(kind, limited, lookup, inputKeys, lookupKeys);
    }
    return attach(lookup, limited, lookupKeys, inputKeys);
  }

  /** {@code lookup} joined to {@code limited} as its build side, as deep in {@code lookup}'s joins as its keys allow. */
  private static LogicalRel attach(LogicalRel lookup, LogicalRel limited, List<String> lookupKeys,
      List<String> inputKeys) {
    if (lookup instanceof LogicalRel.Join join && (join.kind() == JoinKind.INNER || join.kind() == JoinKind.LEFT_OUTER)) {
      if (join.left().columns().containsAll(lookupKeys)) {
        return new LogicalRel.Join(join.kind(), attach(join.left(), limited, lookupKeys, inputKeys), join.right(),
            join.leftKeys(), join.rightKeys());
      }
      if (join.kind() == JoinKind.INNER && join.right().columns().containsAll(lookupKeys)) {
        return new LogicalRel.Join(JoinKind.INNER, join.left(), attach(join.right(), limited, lookupKeys, inputKeys),
            join.leftKeys(), join.rightKeys());
      }
    }
    return new LogicalRel.Join(JoinKind.INNER, lookup, limited, lookupKeys, inputKeys);
  }

  /**
   * Whether joining {@code input} to {@code lookup} on {@code inputKeys = lookupKeys} gives each
   * input row exactly one lookup row ({@code kind} inner) or at most one while keeping it (left outer).
   */
  private boolean extendsOnce(JoinKind kind, LogicalRel input, LogicalRel lookup, List<String> inputKeys,
      List<String> lookupKeys) {
    if (!dependencies.unique(lookup, new HashSet<>(lookupKeys))) {
      return false;
    }
    if (kind == JoinKind.LEFT_OUTER) {
      return true;
    }
    LogicalRel.Scan referenced = wholeTable(lookup);
    if (referenced == null) {
      return false;
    }
    List<Origin> from = new ArrayList<>();
    List<String> to = new ArrayList<>();
    for (int i = 0; i < inputKeys.size(); i++) {
      Origin origin = origin(input, inputKeys.get(i));
      Origin target = origin(lookup, lookupKeys.get(i));
      if (origin == null || target == null || target.scan() != referenced
          || !from.isEmpty() && from.getFirst().scan() != origin.scan()) {
        return false;
      }
      from.add(origin);
      to.add(target.column());
    }
    LogicalRel.Scan referencing = from.getFirst().scan();
    for (ForeignKey key : foreignKeys.apply(referencing)) {
      if (key.referencedTable().equalsIgnoreCase(referenced.table()) && matches(key, from, to)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the key pairs are exactly {@code key}'s column pairs, in any order. */
  private static boolean matches(ForeignKey key, List<Origin> from, List<String> to) {
    if (key.columns().size() != from.size()) {
      return false;
    }
    Set<String> pairs = new HashSet<>();
    for (int i = 0; i < from.size(); i++) {
      pairs.add(from.get(i).column() + "\u0000" + to.get(i));
    }
    Set<String> declared = new HashSet<>();
    for (int i = 0; i < key.columns().size(); i++) {
      declared.add(key.columns().get(i) + "\u0000" + key.referencedColumns().get(i));
    }
    return pairs.size() == from.size() && pairs.equals(declared);
  }

  /** The scan whose every row {@code rel} holds exactly once, or null where that is not known. */
  private LogicalRel.Scan wholeTable(LogicalRel rel) {
    return switch (rel) {
      case LogicalRel.Scan scan -> scan;
      case LogicalRel.Project project -> wholeTable(project.input());
      case LogicalRel.Sort sort -> wholeTable(sort.input());
      case LogicalRel.Join join when join.kind() == JoinKind.INNER || join.kind() == JoinKind.LEFT_OUTER -> {
        LogicalRel.Scan left = wholeTable(join.left());
        if (left != null && extendsOnce(join.kind(), join.left(), join.right(), join.leftKeys(), join.rightKeys())) {
          yield left;
        }
        LogicalRel.Scan right = join.kind() == JoinKind.INNER ? wholeTable(join.right()) : null;
        yield right != null && extendsOnce(JoinKind.INNER, join.right(), join.left(), join.rightKeys(), join.leftKeys())
            ? right : null;
      }
      default -> null;
    };
  }

  /** A column of a relation whose values in every row are those of {@code column} of one row {@code scan} read. */
  private record Origin(LogicalRel.Scan scan, String column) {}

  /** Where {@code column}'s values in {@code rel} come from unchanged, or null where not from one table column. */
  private static Origin origin(LogicalRel rel, String column) {
    return switch (rel) {
      case LogicalRel.Scan scan -> {
        String stored = scan.tableColumn(column);
        yield stored == null ? null : new Origin(scan, stored);
      }
      case LogicalRel.Filter filter -> origin(filter.input(), column);
      case LogicalRel.Sort sort -> origin(sort.input(), column);
      case LogicalRel.Limit limit -> origin(limit.input(), column);
      case LogicalRel.Project project -> passedOnFrom(project.outputs(), column, project.input());
      case LogicalRel.Aggregation a -> passedOnFrom(a.keys(), column, a.input());
      case LogicalRel.Join join -> join.left().columns().contains(column) ? origin(join.left(), column)
          : join.kind() == JoinKind.INNER ? origin(join.right(), column) : null;
      case LogicalRel.Cross cross -> cross.left().columns().contains(column) ? origin(cross.left(), column)
          : origin(cross.right(), column);
      case LogicalRel.Shared shared -> origin(shared.input(), column);
    };
  }

  private static Origin passedOnFrom(List<NamedExpr> outputs, String column, LogicalRel input) {
    for (NamedExpr output : outputs) {
      if (output.name().equals(column)) {
        return output.expr() instanceof Expr.ColumnRef ref ? origin(input, ref.name()) : null;
      }
    }
    return null;
  }

  /** The input columns {@code project} passes on as {@code columns}, in order, or null if one is computed. */
  private static List<String> passedOn(LogicalRel.Project project, List<String> columns) {
    List<String> inputs = new ArrayList<>();
    for (String column : columns) {
      String found = null;
      for (NamedExpr output : project.outputs()) {
        if (output.name().equals(column) && output.expr() instanceof Expr.ColumnRef ref) {
          found = ref.name();
          break;
        }
      }
      if (found == null) {
        return null;
      }
      inputs.add(found);
    }
    return inputs;
  }
}
