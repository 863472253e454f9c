/**
 * Relational composition of memwall's operators: {@link dev.memwall.join.relational.Relation}
 * chains filters, projections, equi-joins (inner, left outer, semi, anti; one or more key
 * columns), aggregation, ordering and limits over Arrow tables, and frees every intermediate table
 * as soon as the next step has consumed it. Scans, filters and projections run on engine-core's
 * {@link dev.memwall.core.plan.Plan}; joins run on {@link dev.memwall.join.Join} with its planner.
 *
 * <p>A query plan reads as the SQL it implements, for example TPC-H Q3:
 *
 * <pre>{@code
 * Relation customers = Relation.scan(customer, context).filter(col("c_mktsegment").eq(lit("BUILDING")));
 * Relation orders = Relation.scan(orders, context).filter(col("o_orderdate").lt(date(day)));
 * Relation lines = Relation.scan(lineitem, context).filter(col("l_shipdate").gt(date(day)));
 * try (Table top = lines
 *     .join(orders.semiJoin(customers).on("o_custkey", "c_custkey").keepAll())
 *     .on("l_orderkey", "o_orderkey").keep("l_orderkey", "l_extendedprice", "l_discount", "o_orderdate", "o_shippriority")
 *     .aggregate(...).orderBy(...).limit(10).toTable()) { ... }
 * }</pre>
 */
package dev.memwall.join.relational;
