package dev.memwall.sql;

import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.Catalog;
import io.substrait.isthmus.SubstraitTypeSystem;
import io.substrait.isthmus.calcite.SubstraitTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.config.CalciteConnectionConfig;
import org.apache.calcite.config.CalciteConnectionProperty;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * A {@link Catalog}'s tables as the SQL tables Calcite validates against: INT32 is INTEGER, INT64
 * BIGINT, FLOAT64 DOUBLE, DATE DATE, DECIMAL (a scaled int64) DECIMAL(18, scale), STRING (plain or
 * dictionary-encoded) VARCHAR, BOOLEAN BOOLEAN, every column nullable. Tables and columns are
 * declared with their names as registered and stored, and matched without regard to case, so a
 * query finds them however it spells them and a reserved word ({@code value}) is a name when
 * quoted; a column memwall has no kind for, or a TIMESTAMP (which the Substrait consumer does not
 * read yet), is left out, so only a query naming it fails, at validation.
 *
 * <p>The declaration is kept per catalog and made again only when the catalog's {@link
 * Catalog#version() version} changes (a table registered), so repeated statements over one catalog
 * do not declare its tables each time; the keeping does not hold a catalog from the garbage
 * collector. Thread safety: any number of threads may call {@link #of}; a declaration, once made,
 * is only read (Calcite's schema, tables and types are not changed by validation).
 */
final class SqlCatalog {
  /** The precision of memwall's decimals as SQL sees them: what an int64 holds in full. */
  static final int DECIMAL_PRECISION = 18;

  /**
   * The type factory of every declaration, validation and conversion, as Isthmus' own parsers share
   * one: Calcite interns its types, so sharing one costs nothing and saves building one per call.
   */
  static final RelDataTypeFactory TYPE_FACTORY = new JavaTypeFactoryImpl(SubstraitTypeSystem.TYPE_SYSTEM);

  private static final CalciteConnectionConfig CONNECTION =
      CalciteConnectionConfig.DEFAULT.set(CalciteConnectionProperty.CASE_SENSITIVE, Boolean.FALSE.toString());

  /** The kept declarations by catalog (by identity: Catalog does not override equals); guarded by itself. */
  private static final Map<Catalog, Declared> DECLARED = new WeakHashMap<>();

  private record Declared(long version, Prepare.CatalogReader reader) {}

  private SqlCatalog() {}

  /** The catalog's tables as Calcite tables: the kept declaration while the catalog is unchanged, else a new one. */
  static Prepare.CatalogReader of(Catalog catalog) {
    long version = catalog.version();
    synchronized (DECLARED) {
      Declared kept = DECLARED.get(catalog);
      if (kept != null && kept.version() == version) {
        return kept.reader();
      }
    }
    // Declared outside the lock: two threads may both declare a changed catalog, and either keeps it.
    Prepare.CatalogReader reader = declare(catalog);
    synchronized (DECLARED) {
      DECLARED.put(catalog, new Declared(version, reader));
    }
    return reader;
  }

  /** A new declaration of the catalog's tables, kept nowhere. */
  static Prepare.CatalogReader declare(Catalog catalog) {
    CalciteSchema root = CalciteSchema.createRootSchema(false, false);
    for (Map.Entry<String, Table> table : catalog.tables().entrySet()) {
      List<String> names = new ArrayList<>();
      List<RelDataType> types = new ArrayList<>();
      for (Field field : table.getValue().schema().getFields()) {
        RelDataType type = sqlType(field);
        if (type != null) {
          names.add(field.getName());
          types.add(TYPE_FACTORY.createTypeWithNullability(type, true));
        }
      }
      if (!names.isEmpty()) {
        root.add(table.getKey(), new SubstraitTable(table.getKey(), TYPE_FACTORY.createStructType(types, names)));
      }
    }
    return new CalciteCatalogReader(root, List.of(), TYPE_FACTORY, CONNECTION);
  }

  private static RelDataType sqlType(Field field) {
    ColumnType type;
    try {
      type = ColumnType.of(field);
    } catch (IllegalArgumentException e) {
      return null;
    }
    return switch (type.kind()) {
      case INT32 -> TYPE_FACTORY.createSqlType(SqlTypeName.INTEGER);
      case INT64 -> TYPE_FACTORY.createSqlType(SqlTypeName.BIGINT);
      case FLOAT64 -> TYPE_FACTORY.createSqlType(SqlTypeName.DOUBLE);
      case DATE -> TYPE_FACTORY.createSqlType(SqlTypeName.DATE);
      case DECIMAL -> TYPE_FACTORY.createSqlType(SqlTypeName.DECIMAL, DECIMAL_PRECISION, type.scale());
      case STRING -> TYPE_FACTORY.createSqlType(SqlTypeName.VARCHAR);
      case BOOLEAN -> TYPE_FACTORY.createSqlType(SqlTypeName.BOOLEAN);
      case TIMESTAMP -> null;
    };
  }
}
