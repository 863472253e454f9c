/**
 * The logical plan a Substrait plan becomes: {@link dev.memwall.substrait.logical.LogicalRel} nodes
 * over memwall {@link dev.memwall.core.expr.Expr}s, columns referred to by names unique within one
 * plan ({@link dev.memwall.substrait.logical.Names}), so that rewrites may move nodes without
 * renumbering anything. Knows nothing of Substrait and runs nothing.
 */
package dev.memwall.substrait.logical;
