/**
 * Substrait plans run on memwall. {@link dev.memwall.substrait.SubstraitPlans} takes a plan (the
 * Java POJOs of {@code io.substrait:core}, or its protobuf) and a {@link dev.memwall.substrait.Catalog}
 * of named tables, converts it into a {@link dev.memwall.substrait.logical.LogicalRel} (every column
 * named uniquely, Substrait's positional field references resolved), orders its comma joins
 * ({@link dev.memwall.substrait.optimizer.JoinOrder}) and lowers it onto a
 * {@link dev.memwall.join.relational.Relation}, run as a table or an Arrow stream.
 *
 * <p>The supported subset:
 *
 * <ul>
 *   <li>Relations: named-table reads (with their filters), filter (an uncorrelated one-column
 *       {@code field IN (subquery)} among its conjuncts runs as a semi join, a {@code [NOT] EXISTS}
 *       correlated only by field equalities as a semi or anti join, a scalar subquery that is a global
 *       aggregate crossed in (uncorrelated) or grouped by and joined on its correlation's fields),
 *       project (with emit), aggregate with
 *       one grouping set and {@code sum}, {@code avg}, {@code min}, {@code max}, {@code count},
 *       {@code count(*)}, sort by fields, fetch without offset, inner, left, right, semi and anti
 *       joins with at least one {@code field = field} conjunct across the inputs (other conjuncts are
 *       filtered after an inner join, or pushed into the non-preserved side when they read only it),
 *       cross products, and any relation's emit.
 *   <li>Expressions: field references, literals of i8 to i64, fp32, fp64, decimal (int64 unscaled,
 *       scale 0 to 18), date, string, varchar, fixedchar and boolean; the standard functions
 *       {@code add}, {@code subtract}, {@code multiply}, {@code divide}, {@code negate}, the
 *       comparisons, {@code between}, {@code and}, {@code or}, {@code not}, {@code is_null},
 *       {@code is_not_null}, {@code coalesce}, {@code like} (literal pattern), {@code substring}
 *       (literal start and length), {@code extract(YEAR)}, a date literal plus or minus an interval
 *       literal; cast to those types; if-then; singular-or-list of literals.
 * </ul>
 *
 * <p>Everything else (other subqueries, outer references, set operations, windows, other functions and
 * types, null literals, DISTINCT aggregates) is refused while the plan is converted, before
 * anything runs, with an {@link dev.memwall.substrait.UnsupportedPlanException} naming the construct
 * and its position as the path of relation kinds from the root, such as
 * {@code root > sort > aggregate > filter: function 'regexp_match_substring'}.
 */
package dev.memwall.substrait;
