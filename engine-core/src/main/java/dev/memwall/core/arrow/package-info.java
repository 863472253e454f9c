/**
 * memwall results as standard Arrow, for host programs: {@link dev.memwall.core.arrow.StandardArrow}
 * declares the schema a host sees (decimals as Decimal128, strings as plain Utf8, no memwall
 * metadata), {@link dev.memwall.core.arrow.StandardBatchCopier} copies one memwall batch into
 * vectors of that schema in the host's allocator, and {@link dev.memwall.core.arrow.TableReader}
 * hands a whole {@link dev.memwall.core.vector.Table} out as an Arrow
 * {@link org.apache.arrow.vector.ipc.ArrowReader}, for Arrow's IPC writers or the C stream interface
 * ({@code org.apache.arrow.c.Data.exportArrayStream}).
 *
 * <p>Internally memwall keeps decimals as scaled int64 and strings dictionary-encoded or not as each
 * operator finds cheaper; the standard schema depends only on the columns' logical types
 * ({@link dev.memwall.core.vector.ColumnType}), so it is the same for every run, operator and join
 * type that produces columns of those types, and it is known before the first batch.
 */
package dev.memwall.core.arrow;
