package dev.memwall.sql;

import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.UnsupportedPlanException;
import io.substrait.isthmus.sql.SubstraitCreateStatementParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.sql.parser.SqlParseException;

/**
 * A {@link Catalog}'s tables as the SQL tables Isthmus plans against, through one {@code CREATE
 * TABLE} statement per table: INT32 is INTEGER, INT64 BIGINT, FLOAT64 DOUBLE, DATE DATE, DECIMAL
 * (a scaled int64) DECIMAL(18, scale), STRING (plain or dictionary-encoded) VARCHAR, BOOLEAN
 * BOOLEAN. Names are quoted, so that a reserved word ({@code value}) is a name too; plain identifiers
 * are quoted in upper case, which is how SQL reads them unquoted, so queries find them in any case; a
 * column memwall has no kind for, or a TIMESTAMP (which the Substrait consumer does not read yet),
 * is left out, so only a query naming it fails, at validation. Stateless.
 */
final class SqlCatalog {
  /** The precision of memwall's decimals as SQL sees them: what an int64 holds in full. */
  static final int DECIMAL_PRECISION = 18;

  private SqlCatalog() {}

  /** The catalog's tables as Calcite tables. */
  static Prepare.CatalogReader of(Catalog catalog) {
    List<String> statements = new ArrayList<>();
    for (Map.Entry<String, Table> table : catalog.tables().entrySet()) {
      List<String> columns = new ArrayList<>();
      for (Field field : table.getValue().schema().getFields()) {
        String type = sqlType(field);
        if (type != null) {
          columns.add(identifier(field.getName()) + " " + type);
        }
      }
      if (!columns.isEmpty()) {
        statements.add("CREATE TABLE " + identifier(table.getKey()) + " (" + String.join(", ", columns) + ")");
      }
    }
    try {
      return SubstraitCreateStatementParser.processCreateStatementsToCatalog(statements.toArray(String[]::new));
    } catch (SqlParseException e) {
      throw new UnsupportedPlanException("catalog", "tables SQL cannot declare: " + e.getMessage());
    }
  }

  private static String sqlType(Field field) {
    ColumnType type;
    try {
      type = ColumnType.of(field);
    } catch (IllegalArgumentException e) {
      return null;
    }
    return switch (type.kind()) {
      case INT32 -> "INTEGER";
      case INT64 -> "BIGINT";
      case FLOAT64 -> "DOUBLE";
      case DATE -> "DATE";
      case DECIMAL -> "DECIMAL(" + DECIMAL_PRECISION + ", " + type.scale() + ")";
      case STRING -> "VARCHAR";
      case BOOLEAN -> "BOOLEAN";
      case TIMESTAMP -> null;
    };
  }

  /** {@code name} double-quoted, in upper case when it is a plain identifier (as SQL reads one unquoted). */
  static String identifier(String name) {
    String declared = name.matches("[A-Za-z_][A-Za-z0-9_]*") ? name.toUpperCase(java.util.Locale.ROOT) : name;
    return "\"" + declared.replace("\"", "\"\"") + "\"";
  }
}
