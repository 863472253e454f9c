/** Semi-join reducers in front of any join: a Bloom filter of the build side's keys drops probe rows early. */
package dev.memwall.join.reducer;
