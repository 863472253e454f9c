/**
 * The {@code memwall} command line ({@link dev.memwall.cli.MemwallCli}): {@code tpch}, {@code calibrate},
 * {@code check}. An application over the TPC-H module and the measurement tools; no library module
 * depends on it.
 */
package dev.memwall.cli;
