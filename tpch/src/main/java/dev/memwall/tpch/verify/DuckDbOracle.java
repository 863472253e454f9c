package dev.memwall.tpch.verify;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.QueryParameters;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.duckdb.DuckDBConnection;

/**
 * An embedded, in-memory DuckDB ({@code jdbc:duckdb:}) holding the same data as memwall: each
 * memwall table is exported zero-copy through the Arrow C stream interface
 * ({@link Data#exportArrayStream} over the table's batches, registered with
 * {@link DuckDBConnection#registerArrowStream}) and copied into a native DuckDB table with
 * {@code CREATE TABLE ... AS SELECT}, converting on the way:
 *
 * <ul>
 *   <li>scaled-int64 decimals to {@code DECIMAL(15,s)} exactly: {@code (col::DECIMAL(18,0) * 0.01)::DECIMAL(15,2)}
 *       is a fixed-point product in DuckDB (no floating point);
 *   <li>dictionary-encoded strings to {@code VARCHAR}; dates stay {@code DATE}; integers stay integers.
 * </ul>
 *
 * <p>The oracle runs SQL ({@link #runSql}) for answers and timings; {@code PRAGMA threads} is set to
 * the thread count given, so a side-by-side timing uses the same parallelism as memwall.
 *
 * <p>Ownership: the DuckDB copy lives in DuckDB's own (native, unbudgeted) memory until
 * {@link #close}; the memwall tables are only read while loading and remain the caller's.
 * Thread safety: not thread-safe; use from one thread. Bad input: SQL errors surface as
 * {@link SQLException} with DuckDB's message.
 */
public final class DuckDbOracle implements AutoCloseable {
  /**
   * The query templates' text by query number, each read from its resource once: the SQL engines
   * time each run from its text, so a run must not include reading and inflating a jar entry.
   */
  private static final Map<Integer, String> TEMPLATES = new ConcurrentHashMap<>();

  private final DuckDBConnection connection;
  private final int threads;

  /**
   * An empty in-memory DuckDB using {@code threads} threads.
   *
   * @throws IllegalArgumentException when threads is less than 1
   */
  public DuckDbOracle(int threads) throws SQLException {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
    this.threads = threads;
    Connection plain = DriverManager.getConnection("jdbc:duckdb:");
    this.connection = plain.unwrap(DuckDBConnection.class);
    try (Statement statement = connection.createStatement()) {
      statement.execute("PRAGMA threads=" + threads);
    }
  }

  /**
   * A DuckDB with all eight tables of {@code database} loaded and checkpointed, stored as DuckDB stores a
   * database its users load: compressed, with each segment's statistics. Without the checkpoint the
   * in-memory tables stay as appended (uncompressed), on which DuckDB ran Q1 in twice the time it takes
   * on the same data loaded into a database file, which would make it a handicapped anchor.
   */
  public static DuckDbOracle of(TpchDatabase database, int threads, EngineMemory memory) throws SQLException {
    DuckDbOracle oracle = new DuckDbOracle(threads);
    try {
      for (Map.Entry<String, Table> table : database.tables().entrySet()) {
        oracle.load(table.getKey(), table.getValue(), memory.arrow());
      }
      try (Statement statement = oracle.connection.createStatement()) {
        statement.execute("CHECKPOINT");
      }
      return oracle;
    } catch (SQLException | RuntimeException e) {
      oracle.close();
      throw e;
    }
  }

  public int threads() {
    return threads;
  }

  /**
   * Copies {@code table} into a new DuckDB table {@code name} (replacing one of that name).
   *
   * @param allocator allocator for the export's own bookkeeping; the table's buffers are shared, not copied
   */
  public void load(String name, Table table, BufferAllocator allocator) throws SQLException {
    String source = "memwall_arrow_" + name + "_" + System.nanoTime();
    try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator);
        TableArrowReader reader = new TableArrowReader(table, allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      connection.registerArrowStream(source, stream);
      try (Statement statement = connection.createStatement()) {
        statement.execute("CREATE OR REPLACE TABLE " + quote(name) + " AS SELECT " + selectList(table)
            + " FROM " + quote(source));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String selectList(Table table) {
    List<String> expressions = new ArrayList<>();
    for (Field field : table.schema().getFields()) {
      String column = quote(field.getName());
      ColumnType type = ColumnType.of(field);
      String expression;
      if (field.getDictionary() != null) {
        expression = column + "::VARCHAR";
      } else if (type.kind() == ColumnType.Kind.DECIMAL) {
        String unit = type.scale() == 0 ? "1" : "0." + "0".repeat(type.scale() - 1) + "1";
        expression = "(" + column + "::DECIMAL(18,0) * " + unit + ")::DECIMAL(15," + type.scale() + ")";
      } else {
        expression = column;
      }
      expressions.add(expression + " AS " + column);
    }
    return String.join(", ", expressions);
  }

  private static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /**
   * Executes {@code sql} and fetches all rows. Several statements separated by {@code ;} are run in
   * order and the last one's rows are returned.
   */
  public QueryResult runSql(String sql) throws SQLException {
    List<String> statements = splitStatements(sql);
    long start = System.nanoTime();
    try (Statement statement = connection.createStatement()) {
      for (int i = 0; i < statements.size() - 1; i++) {
        statement.execute(statements.get(i));
      }
      try (ResultSet resultSet = statement.executeQuery(statements.getLast())) {
        ResultSetMetaData meta = resultSet.getMetaData();
        List<String> columns = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          columns.add(meta.getColumnLabel(i));
        }
        List<List<Object>> rows = new ArrayList<>();
        while (resultSet.next()) {
          List<Object> row = new ArrayList<>(columns.size());
          for (int i = 1; i <= columns.size(); i++) {
            row.add(resultSet.getObject(i));
          }
          rows.add(row);
        }
        return new QueryResult(columns, rows, System.nanoTime() - start);
      }
    }
  }

  /** Executes one statement that returns no rows, such as {@code COPY}. */
  public void execute(String statement) throws SQLException {
    try (Statement jdbc = connection.createStatement()) {
      jdbc.execute(statement);
    }
  }

  /** The number of rows in DuckDB's table {@code name}. */
  public long rowCount(String name) throws SQLException {
    return ((Number) runSql("SELECT count(*) FROM " + quote(name)).rows().getFirst().getFirst()).longValue();
  }

  /**
   * The TPC-H SQL text of query {@code query} (1..22) with {@code parameters} substituted, DuckDB
   * dialect, from the template resources {@code dev/memwall/tpch/sql/qN.sql}.
   */
  public static String tpchSql(QueryParameters parameters) {
    return parameters.substitute(TEMPLATES.computeIfAbsent(parameters.query(), DuckDbOracle::template));
  }

  /** Query {@code query}'s template, read from its resource. */
  private static String template(int query) {
    String resource = "/dev/memwall/tpch/sql/q" + query + ".sql";
    try (InputStream in = DuckDbOracle.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@link #tpchSql} as one statement without its closing semicolon, as engines that take a single
   * statement (Spark's {@code sql}) want it.
   */
  public static String tpchStatement(QueryParameters parameters) {
    String sql = tpchSql(parameters).strip();
    return sql.endsWith(";") ? sql.substring(0, sql.length() - 1) : sql;
  }

  static List<String> splitStatements(String sql) {
    List<String> statements = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    for (String line : sql.split("\n")) {
      String trimmed = line.strip();
      if (!trimmed.startsWith("--")) {
        text.append(line).append('\n');
      }
    }
    for (String part : text.toString().split(";")) {
      if (!part.isBlank()) {
        statements.add(part.strip());
      }
    }
    if (statements.isEmpty()) {
      throw new IllegalArgumentException("no SQL statement in: " + sql);
    }
    return statements;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
