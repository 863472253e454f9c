/** The {@code memwall} command line ({@link dev.memwall.tpch.cli.MemwallCli}). */
package dev.memwall.tpch.cli;
