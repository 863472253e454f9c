package dev.memwall.substrait;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.substrait.optimizer.ConstantFolding;
import dev.memwall.substrait.optimizer.InLists;
import dev.memwall.substrait.optimizer.RangeUnions;
import io.substrait.expression.EnumArg;
import io.substrait.expression.Expression;
import io.substrait.expression.FieldReference;
import io.substrait.expression.FunctionArg;
import io.substrait.type.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Substrait expressions over one relation's input as memwall {@link Expr}s over the input's column
 * names. Supported: field references to the input's columns, literals of the types memwall has
 * (i8 to i64, fp32, fp64, decimal, date, string, varchar, fixedchar, boolean), the standard
 * functions {@code add}, {@code subtract}, {@code multiply}, {@code divide}, {@code negate},
 * {@code equal}, {@code not_equal}, {@code lt}, {@code lte}, {@code gt}, {@code gte},
 * {@code between}, {@code and}, {@code or}, {@code not}, {@code is_null}, {@code is_not_null},
 * {@code coalesce}, {@code like} (a literal pattern), {@code substring} (literal start and length),
 * {@code extract} (YEAR), a date plus or minus a literal interval of days, months or years (folded
 * into a date), {@code cast} to a memwall type, if-then (CASE) and singular-or-list (IN of literals);
 * scalar subqueries where the relation provides their values as columns. Everything else, other
 * subqueries included, throws {@link UnsupportedPlanException} naming it and the
 * position given. Stateless apart from its input's names; one per relation converted.
 */
final class ExpressionConverter {
  private final List<String> input;
  private final String position;
  /** The column a scalar subquery's value is read from, or null where scalar subqueries are refused. */
  private final Function<Expression.ScalarSubquery, String> scalars;

  /**
   * @param input the input's column names by position (what a field reference's offset indexes)
   * @param position the path of the relation whose expressions these are, for refusals
   */
  ExpressionConverter(List<String> input, String position) {
    this(input, position, null);
  }

  /** As above; {@code scalars} gives the column each scalar subquery's value is read from. */
  ExpressionConverter(List<String> input, String position, Function<Expression.ScalarSubquery, String> scalars) {
    this.input = List.copyOf(input);
    this.position = position;
    this.scalars = scalars;
  }

  /** {@code expression} as a memwall expression. */
  Expr convert(Expression expression) {
    return switch (expression) {
      case FieldReference reference -> Expr.col(column(reference));
      case Expression.Literal literal -> literal(literal);
      case Expression.ScalarFunctionInvocation call -> call(call);
      case Expression.Cast cast -> cast(cast);
      case Expression.IfThen ifThen -> ifThen(ifThen, 0);
      case Expression.SingleOrList in -> inList(in);
      case Expression.ScalarSubquery scalar when scalars != null -> Expr.col(scalars.apply(scalar));
      case Expression.Subquery subquery -> throw refuse("subquery (" + subquery.getClass().getSimpleName()
          .replace("Immutable", "") + "); subqueries are not decorrelated yet");
      default -> throw refuse("expression " + expression.getClass().getSimpleName().replace("Immutable", ""));
    };
  }

  /** The name of the input column {@code reference} points at. */
  String column(FieldReference reference) {
    if (reference.isOuterReference()) {
      throw refuse("outer reference (a correlated subquery)");
    }
    if (!reference.isSimpleRootReference() || reference.segments().size() != 1
        || !(reference.segments().getFirst() instanceof FieldReference.StructField field)) {
      throw refuse("field reference " + reference.segments() + " (only direct references to input fields)");
    }
    int offset = field.offset();
    if (offset < 0 || offset >= input.size()) {
      throw refuse("field reference " + offset + " out of the input's " + input.size() + " fields");
    }
    return input.get(offset);
  }

  private Expr call(Expression.ScalarFunctionInvocation call) {
    String name = call.declaration().name().toLowerCase(Locale.ROOT);
    List<FunctionArg> args = call.arguments();
    return switch (name) {
      case "add", "subtract" -> dateShift(name, args).orElseGet(() -> int32(call, binary(name, args)));
      case "multiply" -> int32(call, binary(name, args));
      case "divide" -> binary(name, args);
      case "negate" -> int32(call, ConstantFolding.fold(Expr.lit(0).sub(argument(name, args, 0, 1))));
      case "equal", "not_equal", "lt", "lte", "gt", "gte" -> binary(name, args);
      case "between" -> argument(name, args, 0, 3).between(argument(name, args, 1, 3), argument(name, args, 2, 3));
      case "and", "or" -> {
        List<Expr> operands = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
          operands.add(argument(name, args, i, args.size()));
        }
        if (operands.isEmpty()) {
          throw refuse("function '" + name + "' without operands");
        }
        yield operands.size() == 1 ? operands.getFirst()
            : name.equals("and") ? new Expr.And(operands) : RangeUnions.of(InLists.of(new Expr.Or(operands)));
      }
      case "not" -> Expr.not(argument(name, args, 0, 1));
      case "is_null" -> Expr.isNull(argument(name, args, 0, 1));
      case "is_not_null" -> Expr.not(Expr.isNull(argument(name, args, 0, 1)));
      case "coalesce" -> coalesce(name, args, 0);
      case "like" -> like(name, args);
      case "substring" -> substring(name, args);
      case "extract" -> extract(name, args);
      default -> throw refuse("function '" + name + "'");
    };
  }

  /**
   * {@code result} as the INT32 the plan declares for {@code call}, when it declares one: memwall's
   * integer arithmetic computes in 64 bits, and SQL's {@code INTEGER + INTEGER} is an INTEGER whose
   * overflow is an error (as in DuckDB and PostgreSQL), which the checked cast raises.
   */
  private static Expr int32(Expression.ScalarFunctionInvocation call, Expr result) {
    return call.outputType() instanceof Type.I32 ? ConstantFolding.fold(result.cast(ColumnType.INT32)) : result;
  }

  private Expr binary(String name, List<FunctionArg> args) {
    Expr left = argument(name, args, 0, 2);
    Expr right = argument(name, args, 1, 2);
    if (isString(args.get(0)) && isString(args.get(1))
        && !(left instanceof Expr.Literal) && !(right instanceof Expr.Literal)) {
      throw refuse("function '" + name + "' over two string expressions (a string compares with a literal only)");
    }
    return ConstantFolding.fold(switch (name) {
      case "add" -> left.add(right);
      case "subtract" -> left.sub(right);
      case "multiply" -> left.mul(right);
      case "divide" -> left.div(right);
      case "equal" -> left.eq(right);
      case "not_equal" -> left.ne(right);
      case "lt" -> left.lt(right);
      case "lte" -> left.le(right);
      case "gt" -> left.gt(right);
      case "gte" -> left.ge(right);
      default -> throw new IllegalStateException("not a binary function: " + name);
    });
  }

  private static boolean isString(FunctionArg arg) {
    return arg instanceof Expression e
        && (e.getType() instanceof Type.Str || e.getType() instanceof Type.VarChar || e.getType() instanceof Type.FixedChar);
  }

  /** A date literal plus or minus an interval literal, folded into the date it is; empty for anything else. */
  private java.util.Optional<Expr> dateShift(String name, List<FunctionArg> args) {
    if (args.size() != 2 || !(args.get(0) instanceof Expression first) || !(args.get(1) instanceof Expression second)) {
      return java.util.Optional.empty();
    }
    boolean intervalFirst = first instanceof Expression.IntervalYearLiteral || first instanceof Expression.IntervalDayLiteral;
    Expression dateSide = intervalFirst && name.equals("add") ? second : first;
    Expression intervalSide = intervalFirst && name.equals("add") ? first : second;
    boolean isInterval = intervalSide instanceof Expression.IntervalYearLiteral
        || intervalSide instanceof Expression.IntervalDayLiteral;
    if (!isInterval) {
      return java.util.Optional.empty();
    }
    if (!(dateSide instanceof Expression.DateLiteral date)) {
      throw refuse("function '" + name + "' of a date that is not a literal and an interval");
    }
    int sign = name.equals("add") ? 1 : -1;
    LocalDate day = LocalDate.ofEpochDay(date.value());
    LocalDate shifted = switch (intervalSide) {
      case Expression.IntervalYearLiteral years -> day.plusMonths(sign * (12L * years.years() + years.months()));
      case Expression.IntervalDayLiteral days when days.seconds() == 0 && days.subseconds() == 0 ->
          day.plusDays(sign * (long) days.days());
      default -> throw refuse("function '" + name + "' of a date and an interval with a time of day");
    };
    return java.util.Optional.of(Expr.date(shifted));
  }

  private Expr coalesce(String name, List<FunctionArg> args, int from) {
    Expr first = argument(name, args, from, args.size());
    return from == args.size() - 1 ? first : Expr.coalesce(first, coalesce(name, args, from + 1));
  }

  private Expr like(String name, List<FunctionArg> args) {
    if (args.size() != 2) {
      throw refuse("function 'like' with " + args.size() + " arguments (an escape character is not supported)");
    }
    return argument(name, args, 0, 2).like(text(name, args.get(1), "pattern"));
  }

  private Expr substring(String name, List<FunctionArg> args) {
    if (args.size() != 3) {
      throw refuse("function 'substring' with " + args.size() + " arguments (start and length are needed)");
    }
    long start = integer(name, args.get(1), "start");
    long length = integer(name, args.get(2), "length");
    if (start < 1 || start > Integer.MAX_VALUE || length < 0 || length > Integer.MAX_VALUE) {
      throw refuse("function 'substring' from " + start + " for " + length + " (start >= 1, length >= 0)");
    }
    return Expr.substring(argument(name, args, 0, 3), (int) start, (int) length);
  }

  private Expr extract(String name, List<FunctionArg> args) {
    if (args.size() != 2 || !(args.get(0) instanceof EnumArg component)) {
      throw refuse("function 'extract' with arguments " + args);
    }
    String what = component.value().orElse("").toUpperCase(Locale.ROOT);
    if (!what.equals("YEAR")) {
      throw refuse("function 'extract' of " + (what.isEmpty() ? "an unnamed component" : what) + " (only YEAR)");
    }
    return Expr.year(argument(name, args, 1, 2));
  }

  private Expr cast(Expression.Cast cast) {
    Expr operand = convert(cast.input());
    ColumnType target = SubstraitTypes.of(cast.type())
        .orElseThrow(() -> refuse("cast to " + SubstraitTypes.describe(cast.type())));
    ColumnType source = SubstraitTypes.of(cast.input().getType()).orElse(null);
    if (target.equals(source) || (target.kind() == ColumnType.Kind.STRING && source != null
        && source.kind() == ColumnType.Kind.STRING)) {
      return operand; // varchar(n) to string and the like: memwall's strings have no length
    }
    return ConstantFolding.fold(Expr.cast(operand, target));
  }

  private Expr ifThen(Expression.IfThen ifThen, int clause) {
    if (clause == ifThen.ifClauses().size()) {
      return convert(ifThen.elseClause());
    }
    Expression.IfClause branch = ifThen.ifClauses().get(clause);
    return Expr.caseWhen(convert(branch.condition()), convert(branch.then()), ifThen(ifThen, clause + 1));
  }

  private Expr inList(Expression.SingleOrList in) {
    List<Expr.Literal> values = new ArrayList<>();
    for (Expression option : in.options()) {
      if (!(convert(option) instanceof Expr.Literal literal)) {
        throw refuse("IN list with a value that is not a literal");
      }
      values.add(literal);
    }
    return convert(in.condition()).in(values.toArray(Expr.Literal[]::new));
  }

  private Expr literal(Expression.Literal literal) {
    return switch (literal) {
      case Expression.I8Literal l -> new Expr.Literal((long) l.value(), ColumnType.INT32);
      case Expression.I16Literal l -> new Expr.Literal((long) l.value(), ColumnType.INT32);
      case Expression.I32Literal l -> new Expr.Literal((long) l.value(), ColumnType.INT32);
      case Expression.I64Literal l -> Expr.lit(l.value());
      case Expression.FP32Literal l -> Expr.lit((double) l.value());
      case Expression.FP64Literal l -> Expr.lit(l.value());
      case Expression.BoolLiteral l -> Expr.lit(l.value());
      case Expression.StrLiteral l -> Expr.lit(l.value());
      case Expression.VarCharLiteral l -> Expr.lit(l.value());
      case Expression.FixedCharLiteral l -> Expr.lit(l.value());
      case Expression.DateLiteral l -> Expr.date(LocalDate.ofEpochDay(l.value()));
      case Expression.DecimalLiteral l -> decimal(l);
      case Expression.NullLiteral l -> throw refuse("null literal");
      default -> throw refuse("literal of type " + SubstraitTypes.describe(literal.getType()));
    };
  }

  /** A decimal literal: 16 bytes, little-endian two's complement, unscaled. */
  private Expr decimal(Expression.DecimalLiteral literal) {
    byte[] littleEndian = literal.value().toByteArray();
    byte[] bigEndian = new byte[littleEndian.length];
    for (int i = 0; i < littleEndian.length; i++) {
      bigEndian[i] = littleEndian[littleEndian.length - 1 - i];
    }
    BigDecimal value = new BigDecimal(new BigInteger(bigEndian), literal.scale());
    if (literal.scale() < 0 || literal.scale() > 18 || value.unscaledValue().bitLength() > 63) {
      throw refuse("decimal literal " + value.toPlainString() + " (memwall's decimals are int64 with scale 0..18)");
    }
    return new Expr.Literal(value.unscaledValue().longValueExact(), ColumnType.decimal(literal.scale()));
  }

  private Expr argument(String function, List<FunctionArg> args, int index, int expected) {
    if (args.size() != expected) {
      throw refuse("function '" + function + "' with " + args.size() + " arguments (expected " + expected + ")");
    }
    if (!(args.get(index) instanceof Expression expression)) {
      throw refuse("function '" + function + "' with a non-value argument " + args.get(index));
    }
    return convert(expression);
  }

  private String text(String function, FunctionArg arg, String what) {
    if (arg instanceof Expression expression && convert(expression) instanceof Expr.Literal literal
        && literal.value() instanceof String value) {
      return value;
    }
    throw refuse("function '" + function + "' whose " + what + " is not a string literal");
  }

  private long integer(String function, FunctionArg arg, String what) {
    if (arg instanceof Expression expression && convert(expression) instanceof Expr.Literal literal
        && literal.value() instanceof Long value && literal.type().kind() != ColumnType.Kind.DECIMAL) {
      return value;
    }
    throw refuse("function '" + function + "' whose " + what + " is not an integer literal");
  }

  UnsupportedPlanException refuse(String what) {
    return new UnsupportedPlanException(position, what);
  }
}
