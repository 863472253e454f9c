/**
 * The critical-section microbenchmarks of Johnson, Pandis and Ailamaki (2008): N threads (JMH's
 * {@code -t}) loop on a delay outside, an acquire, a delay inside and a release, and JMH's average
 * time is the paper's cost per iteration per thread. {@link
 * dev.memwall.bench.concurrent.CriticalSectionBenchmark} compares mutexes (their Fig. 2), {@link
 * dev.memwall.bench.concurrent.ReaderWriterBenchmark} reader-writer locks and optimistic reads
 * (their Fig. 3). The commands and the figures are in {@code docs/benchmarks/critical-sections.md}.
 */
package dev.memwall.bench.concurrent;
