package dev.memwall.substrait;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import io.substrait.dsl.SubstraitBuilder;
import io.substrait.expression.AggregateFunctionInvocation;
import io.substrait.expression.Expression;
import io.substrait.expression.ExpressionCreator;
import io.substrait.expression.FunctionArg;
import io.substrait.extension.SimpleExtension;
import io.substrait.relation.NamedScan;
import io.substrait.type.Type;
import io.substrait.type.TypeCreator;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;

/**
 * Two small tables with nulls and repeated keys, their Substrait reads, and helpers that build
 * Substrait function calls by name (the first variant of the standard extensions with that many
 * arguments).
 *
 * <p>{@code t(id INT64, grp STRING, amount DECIMAL(2), day DATE, qty INT32, price FLOAT64)} and
 * {@code u(uid INT64, label STRING)}.
 */
final class Fixture {
  static final SimpleExtension.ExtensionCollection EXTENSIONS = SimpleExtension.loadDefaults();
  static final SubstraitBuilder B = new SubstraitBuilder(EXTENSIONS);
  static final TypeCreator N = TypeCreator.NULLABLE;

  static final List<String> T_COLUMNS = List.of("id", "grp", "amount", "day", "qty", "price");
  static final List<Type> T_TYPES = List.of(N.I64, N.STRING, N.decimal(18, 2), N.DATE, N.I32, N.FP64);
  static final List<String> U_COLUMNS = List.of("uid", "label");
  static final List<Type> U_TYPES = List.of(N.I64, N.STRING);

  /** The rows of t: id, grp, amount (unscaled, scale 2), day (epoch days), qty, price; null is null. */
  static final List<Object[]> T_ROWS = List.of(
      new Object[] {1L, "a", 150L, 8000L, 3L, 1.5},
      new Object[] {2L, "b", 275L, 8400L, 1L, 2.0},
      new Object[] {3L, "a", null, 9000L, 7L, null},
      new Object[] {4L, null, 1000L, 9500L, null, 0.25},
      new Object[] {5L, "c", -300L, 10000L, 2L, 8.0},
      new Object[] {6L, "b", 5L, 11000L, 5L, -1.0},
      new Object[] {7L, "a", 99999L, 8766L, 9L, 3.5},
      new Object[] {8L, "abc", 0L, null, 4L, 4.0});

  static final List<Object[]> U_ROWS = List.of(
      new Object[] {1L, "x"},
      new Object[] {1L, "y"},
      new Object[] {3L, "x"},
      new Object[] {6L, null},
      new Object[] {9L, "z"},
      new Object[] {null, "x"});

  private Fixture() {}

  static Table t(EngineMemory memory) {
    return build(T_COLUMNS, List.of(ColumnType.INT64, ColumnType.STRING, ColumnType.decimal(2), ColumnType.DATE,
        ColumnType.INT32, ColumnType.FLOAT64), T_ROWS, memory);
  }

  static Table u(EngineMemory memory) {
    return build(U_COLUMNS, List.of(ColumnType.INT64, ColumnType.STRING), U_ROWS, memory);
  }

  static Table build(List<String> names, List<ColumnType> types, List<Object[]> rows, EngineMemory memory) {
    try (TableBuilder builder = new TableBuilder(names, types, memory.arrow())) {
      for (Object[] row : rows) {
        for (int c = 0; c < row.length; c++) {
          switch (row[c]) {
            case null -> builder.appendNull();
            case String s -> builder.appendString(s.getBytes(StandardCharsets.UTF_8));
            case Double d -> builder.appendDouble(d);
            case Long l -> builder.appendLong(l);
            default -> throw new IllegalArgumentException("no column value " + row[c]);
          }
        }
        builder.endRow();
      }
      return builder.build();
    }
  }

  static NamedScan scanT() {
    return B.namedScan(List.of("t"), T_COLUMNS, T_TYPES);
  }

  static NamedScan scanU() {
    return B.namedScan(List.of("u"), U_COLUMNS, U_TYPES);
  }

  /** A call of the standard scalar function {@code name} with {@code args}. */
  static Expression.ScalarFunctionInvocation call(String name, Type output, FunctionArg... args) {
    SimpleExtension.ScalarFunctionVariant variant = EXTENSIONS.scalarFunctions().stream()
        .filter(f -> f.name().equals(name) && (f.args().size() == args.length || f.variadic().isPresent()))
        .findFirst()
        .or(() -> EXTENSIONS.scalarFunctions().stream().filter(f -> f.name().equals(name)).findFirst())
        .orElseThrow(() -> new IllegalArgumentException("no scalar function " + name + "/" + args.length));
    return ExpressionCreator.scalarFunction(variant, output, args);
  }

  /** A call of the standard aggregate function {@code name}. */
  static AggregateFunctionInvocation aggregate(String name, Type output, Expression.AggregationInvocation invocation,
      Expression... args) {
    return aggregate(name, output, Expression.AggregationPhase.INITIAL_TO_RESULT, invocation, args);
  }

  /**
   * A call of the standard aggregate function {@code name} in {@code phase}: the variant with as
   * many arguments, or any variant of that name (for calls that are to be refused).
   */
  static AggregateFunctionInvocation aggregate(String name, Type output, Expression.AggregationPhase phase,
      Expression.AggregationInvocation invocation, Expression... args) {
    SimpleExtension.AggregateFunctionVariant variant = EXTENSIONS.aggregateFunctions().stream()
        .filter(f -> f.name().equals(name) && f.args().size() == args.length).findFirst()
        .or(() -> EXTENSIONS.aggregateFunctions().stream().filter(f -> f.name().equals(name)).findFirst())
        .orElseThrow(() -> new IllegalArgumentException("no aggregate function " + name));
    return ExpressionCreator.aggregateFunction(variant, output, phase, List.of(), invocation, args);
  }

  static Expression.DateLiteral date(String iso) {
    return ExpressionCreator.date(false, (int) LocalDate.parse(iso).toEpochDay());
  }

  /** The rows of {@code table} as lists of {@link dev.memwall.core.vector.Column#getObject} values; closes it. */
  static List<List<Object>> rows(Table table) {
    try (table) {
      return TableRows.of(table);
    }
  }

  static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }
}
