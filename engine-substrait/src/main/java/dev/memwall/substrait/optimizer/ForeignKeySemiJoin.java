package dev.memwall.substrait.optimizer;

import dev.memwall.substrait.logical.LogicalRel;
import dev.memwall.substrait.logical.LogicalRel.JoinKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * A semi join on a foreign key with the referenced table's rows that a semi join on part of its key
 * keeps is a semi join on that part of the foreign key with what keeps them: TPC-H Q20's year of
 * lineitem semi-joined on {@code (l_partkey, l_suppkey)} with the partsupp rows of the chosen parts
 * is the year semi-joined on {@code l_partkey} with the chosen parts, one key in a smaller table
 * instead of two.
 *
 * <pre>
 * semi join on FK = PK                       =&gt;   semi join on FK' = Y
 *   filter (scan T)                                filter (scan T)
 *   [shared] semi join on PK' = Y
 *     scan P
 *     Y
 * </pre>
 *
 * <p>It holds where FK are the columns of a foreign key of T that references P's declared key PK
 * (pair by pair, in any order), T is read through filters only, P is read whole, and PK' are some
 * of PK, FK' their partners in FK: every row of T references exactly one row p of P (non-null, as
 * the declaration promises), so it has a match exactly when p is kept, that is when p's PK' are
 * among Y's, that is when the row's FK' are. A declaration the data breaks gives wrong answers, as
 * for every rewrite that relies on one ({@code Catalog.declareForeignKey}). Stateless and
 * thread-safe when the foreign keys are.
 */
public final class ForeignKeySemiJoin {
  private ForeignKeySemiJoin() {}

  /**
   * {@code rel} with each such semi join on part of the foreign key; the same rows.
   *
   * @param foreignKeys the foreign keys declared for a scan's table
   */
  public static LogicalRel rewrite(LogicalRel rel, Function<LogicalRel.Scan, List<ForeignKey>> foreignKeys) {
    return Rebuild.eachNode(rel, node -> node instanceof LogicalRel.Join join && join.kind() == JoinKind.SEMI
        ? narrowed(join, foreignKeys) : node);
  }

  private static LogicalRel narrowed(LogicalRel.Join join, Function<LogicalRel.Scan, List<ForeignKey>> foreignKeys) {
    LogicalRel.Scan referencing = NestedSemiJoins.scan(join.left());
    LogicalRel build = join.right() instanceof LogicalRel.Shared shared ? shared.input() : join.right();
    if (referencing == null || !(build instanceof LogicalRel.Join inner) || inner.kind() != JoinKind.SEMI
        || !(inner.left() instanceof LogicalRel.Scan referenced)) {
      return join;
    }
    List<String> fk = tableColumns(referencing, join.leftKeys());
    List<String> pk = tableColumns(referenced, join.rightKeys());
    if (fk == null || pk == null || foreignKeys.apply(referencing).stream().noneMatch(key -> key.referencedTable()
        .toLowerCase(Locale.ROOT).equals(referenced.table().toLowerCase(Locale.ROOT))
        && samePairs(key, fk, pk))) {
      return join;
    }
    List<String> narrowedKeys = new ArrayList<>();
    for (String part : inner.leftKeys()) {
      int at = join.rightKeys().indexOf(part);
      if (at < 0) {
        return join;
      }
      narrowedKeys.add(join.leftKeys().get(at));
    }
    return new LogicalRel.Join(JoinKind.SEMI, join.left(), inner.right(), narrowedKeys, inner.rightKeys());
  }

  /** Whether {@code key} pairs each of {@code fk} with the same position's {@code pk}, and has no other pair. */
  private static boolean samePairs(ForeignKey key, List<String> fk, List<String> pk) {
    if (key.columns().size() != fk.size()) {
      return false;
    }
    for (int i = 0; i < fk.size(); i++) {
      int at = key.columns().indexOf(fk.get(i));
      if (at < 0 || !key.referencedColumns().get(at).equals(pk.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** The table's names of {@code scan}'s {@code columns}, or null where one is not the scan's. */
  private static List<String> tableColumns(LogicalRel.Scan scan, List<String> columns) {
    List<String> names = new ArrayList<>();
    for (String column : columns) {
      String name = scan.tableColumn(column);
      if (name == null) {
        return null;
      }
      names.add(name);
    }
    return names;
  }
}
