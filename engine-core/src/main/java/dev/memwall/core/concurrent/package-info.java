/** Running an operator's parallel tasks on threads of their own. */
package dev.memwall.core.concurrent;
