/**
 * Reports of memwall's runs as files people read: the calibrator's curves and the TPC-H
 * side-by-side table as Markdown, CSV and PNG charts (XChart).
 */
package dev.memwall.tpch.report;
