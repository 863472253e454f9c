/**
 * SQL text on memwall: {@link dev.memwall.sql.Memwall#sql} plans a {@code SELECT} with Isthmus
 * (Apache Calcite's parser and validator, {@code io.substrait:isthmus}) into Substrait over the
 * catalog's tables, declared to Calcite with their memwall types, and runs it through
 * {@link dev.memwall.substrait.SubstraitPlans}. The SQL subset is the consumer's (see
 * {@code docs/sql.md}); text that does not parse or validate is refused with
 * {@link dev.memwall.sql.SqlException}, a plan outside the subset with
 * {@link dev.memwall.substrait.UnsupportedPlanException}, both before anything runs.
 */
package dev.memwall.sql;
