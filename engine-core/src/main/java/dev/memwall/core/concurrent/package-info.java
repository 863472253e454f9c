/**
 * Running an operator's parallel tasks on threads of their own, their cancellation, and short spin
 * locks ({@link dev.memwall.core.concurrent.TatasLock}, {@link dev.memwall.core.concurrent.McsLock})
 * for critical sections of a few memory accesses that park when the holder is descheduled.
 */
package dev.memwall.core.concurrent;
