/**
 * TPC-H data: generation of the eight tables with {@code io.trino.tpch} into Arrow IPC files under
 * {@code <cache>/sf<N>/} ({@link dev.memwall.tpch.data.TpchDataGenerator}), the on-disk layout
 * ({@link dev.memwall.tpch.data.TpchSchema}), the completeness manifest
 * ({@link dev.memwall.tpch.data.TpchManifest}) and zero-copy loading
 * ({@link dev.memwall.tpch.data.TpchDatabase}).
 */
package dev.memwall.tpch.data;
