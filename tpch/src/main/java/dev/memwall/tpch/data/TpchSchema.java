package dev.memwall.tpch.data;

import dev.memwall.core.vector.ColumnType;
import io.trino.tpch.Distributions;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchColumnType;
import io.trino.tpch.TpchTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * How memwall stores the eight TPC-H tables in Arrow: the type of every column.
 *
 * <ul>
 *   <li>Decimals (prices, discount, tax, quantity, balances, costs): {@code ColumnType.decimal(2)},
 *       int64 holding the exact number of cents.
 *   <li>Dates: {@link ColumnType#DATE}, days since 1970-01-01.
 *   <li>{@code l_orderkey}, {@code o_orderkey}: INT64; every other key and integer: INT32.
 *   <li>Low-cardinality strings ({@code l_returnflag}, {@code l_linestatus}, {@code l_shipinstruct},
 *       {@code l_shipmode}, {@code o_orderstatus}, {@code o_orderpriority}, {@code c_mktsegment},
 *       {@code p_mfgr}, {@code p_brand}, {@code p_container}): dictionary-encoded with signed 8-bit
 *       codes; {@code p_type} (150 values) with 16-bit codes. Every dictionary is the column's
 *       complete value domain from the TPC-H specification, <em>sorted</em>, so code order is string
 *       order and every file of a table carries the identical dictionary.
 *   <li>All other strings: Utf8.
 * </ul>
 *
 * <p>Thread safety: immutable.
 */
public final class TpchSchema {
  /** The table names in generation order. */
  public static final List<String> TABLE_NAMES =
      List.of("lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region");

  /**
   * One column's storage.
   *
   * @param dictionary the sorted value domain for a dictionary-encoded column, else null
   * @param codeBits 8 or 16 for a dictionary-encoded column, else 0
   */
  public record ColumnLayout(String name, TpchColumn<?> source, ColumnType type, List<String> dictionary,
      int codeBits) {
    public boolean dictionaryEncoded() {
      return dictionary != null;
    }
  }

  private static final Map<String, List<String>> DICTIONARIES = dictionaries();

  private TpchSchema() {}

  /** The trino generator table for {@code name}. */
  public static TpchTable<?> generatorTable(String name) {
    return TpchTable.getTable(checkName(name));
  }

  /**
   * The column layout of table {@code name}.
   *
   * @throws IllegalArgumentException for an unknown table name
   */
  public static List<ColumnLayout> columns(String name) {
    List<ColumnLayout> columns = new ArrayList<>();
    for (TpchColumn<?> column : generatorTable(name).getColumns()) {
      String columnName = column.getColumnName();
      TpchColumnType.Base base = column.getType().getBase();
      List<String> dictionary = DICTIONARIES.get(columnName);
      ColumnType type = switch (base) {
        case IDENTIFIER -> columnName.endsWith("_orderkey") ? ColumnType.INT64 : ColumnType.INT32;
        case INTEGER -> ColumnType.INT32;
        case DATE -> ColumnType.DATE;
        case DOUBLE -> ColumnType.decimal(2);
        case VARCHAR -> ColumnType.STRING;
      };
      int codeBits = dictionary == null ? 0 : dictionary.size() <= 127 ? 8 : 16;
      columns.add(new ColumnLayout(columnName, column, type, dictionary, codeBits));
    }
    return List.copyOf(columns);
  }

  /** The Arrow schema of table {@code name}; dictionary ids are the column positions. */
  public static Schema schema(String name) {
    List<Field> fields = new ArrayList<>();
    List<ColumnLayout> columns = columns(name);
    for (int i = 0; i < columns.size(); i++) {
      ColumnLayout column = columns.get(i);
      DictionaryEncoding encoding = column.dictionaryEncoded()
          ? new DictionaryEncoding(i, true, new ArrowType.Int(column.codeBits(), true)) : null;
      fields.add(column.type().toField(column.name(), false, encoding));
    }
    return new Schema(fields);
  }

  static String checkName(String name) {
    if (!TABLE_NAMES.contains(name)) {
      throw new IllegalArgumentException("unknown TPC-H table '" + name + "'; tables are " + TABLE_NAMES);
    }
    return name;
  }

  private static Map<String, List<String>> dictionaries() {
    Distributions d = Distributions.getDefaultDistributions();
    List<String> brands = IntStream.rangeClosed(1, 5).boxed()
        .flatMap(m -> IntStream.rangeClosed(1, 5).mapToObj(n -> "Brand#" + m + n)).toList();
    List<String> manufacturers = IntStream.rangeClosed(1, 5).mapToObj(m -> "Manufacturer#" + m).toList();
    return Map.ofEntries(
        Map.entry("l_returnflag", sorted(List.of("A", "N", "R"))),
        Map.entry("l_linestatus", sorted(List.of("F", "O"))),
        Map.entry("l_shipinstruct", sorted(d.getShipInstructions().getValues())),
        Map.entry("l_shipmode", sorted(d.getShipModes().getValues())),
        Map.entry("o_orderstatus", sorted(List.of("F", "O", "P"))),
        Map.entry("o_orderpriority", sorted(d.getOrderPriorities().getValues())),
        Map.entry("c_mktsegment", sorted(d.getMarketSegments().getValues())),
        Map.entry("p_mfgr", sorted(manufacturers)),
        Map.entry("p_brand", sorted(brands)),
        Map.entry("p_container", sorted(d.getPartContainers().getValues())),
        Map.entry("p_type", sorted(d.getPartTypes().getValues())));
  }

  private static List<String> sorted(List<String> values) {
    return values.stream().distinct().sorted().toList();
  }
}
