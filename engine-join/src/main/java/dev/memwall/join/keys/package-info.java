/**
 * Join keys: validating the key columns of both inputs, and turning each row's key into one 64-bit
 * hash that, for keys of at most 64 bits, is the key itself in bijective disguise.
 */
package dev.memwall.join.keys;
