package dev.memwall.substrait;

import dev.memwall.core.vector.ColumnType;
import io.substrait.type.Type;
import java.util.Optional;

/**
 * Substrait types as memwall column types: i8, i16 and i32 are INT32, i64 INT64, fp32 and fp64
 * FLOAT64, decimal up to precision 18 (or wider, then checked per value by memwall's arithmetic)
 * and scale 18 a scaled int64 DECIMAL, date DATE, string, varchar and fixedchar STRING, boolean
 * BOOLEAN. Everything else has no memwall kind.
 */
final class SubstraitTypes {
  private SubstraitTypes() {}

  /** The memwall type of {@code type}, or empty where memwall has none. */
  static Optional<ColumnType> of(Type type) {
    return Optional.ofNullable(switch (type) {
      case Type.I8 t -> ColumnType.INT32;
      case Type.I16 t -> ColumnType.INT32;
      case Type.I32 t -> ColumnType.INT32;
      case Type.I64 t -> ColumnType.INT64;
      case Type.FP32 t -> ColumnType.FLOAT64;
      case Type.FP64 t -> ColumnType.FLOAT64;
      case Type.Decimal d when d.scale() >= 0 && d.scale() <= 18 -> ColumnType.decimal(d.scale());
      case Type.Date t -> ColumnType.DATE;
      case Type.Str t -> ColumnType.STRING;
      case Type.VarChar t -> ColumnType.STRING;
      case Type.FixedChar t -> ColumnType.STRING;
      case Type.Bool t -> ColumnType.BOOLEAN;
      default -> null;
    });
  }

  /** A short name of {@code type} for messages: its class name, as {@code Decimal} or {@code IntervalDay}. */
  static String describe(Type type) {
    String text = type.toString();
    int brace = text.indexOf('{');
    return brace > 0 ? text.substring(0, brace) : text;
  }
}
