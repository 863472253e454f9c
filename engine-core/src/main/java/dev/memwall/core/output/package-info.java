/**
 * Projected output columns bound over one worker's input ({@link dev.memwall.core.output.OutputColumn}):
 * what a pipeline's collector copies into the vectors of a table it builds, and what a streaming
 * join's probe copies into the scratch batch of pairs it emits. Each kind of column (an integral or
 * a FLOAT64 expression, a string column, a SUBSTRING of one) is one class that evaluates a chunk
 * once and writes the rows asked for in loops of its own type, so a writer makes one call per column
 * and chunk, never one per value.
 *
 * <p>Depends on {@code expr} (kernels, binding) and {@code vector} (tables, scratch batches); the
 * plan and the joins depend on it.
 */
package dev.memwall.core.output;
