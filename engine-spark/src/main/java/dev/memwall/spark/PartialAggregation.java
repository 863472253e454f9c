package dev.memwall.spark;

import dev.memwall.core.expr.Binder;
import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Average;
import org.apache.spark.sql.catalyst.expressions.aggregate.Count;
import org.apache.spark.sql.catalyst.expressions.aggregate.Max;
import org.apache.spark.sql.catalyst.expressions.aggregate.Min;
import org.apache.spark.sql.catalyst.expressions.aggregate.Partial$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A Spark partial hash aggregation as memwall computes it: the grouping keys and aggregates of a memwall
 * {@link Plan}, and how each column of Spark's partial output (the grouping keys, then each function's
 * aggregation buffer) is read from memwall's result ({@link OutputSlot}).
 *
 * <p>Spark's buffers, per function over an argument {@code x}: {@code sum} of a decimal: the sum (0 for a
 * group without values) and whether the group had none; {@code sum} of another type: the sum or null;
 * {@code avg}: the sum (0 when none; a double unless {@code x} is a decimal) and the count of values;
 * {@code count(x)} / {@code count(*)}: the count; {@code min}/{@code max}: the value or null. memwall's SUM,
 * COUNT, MIN and MAX give exactly these (its AVG is a double, so an average becomes a SUM and a COUNT).
 * Doubles follow Spark's order ({@link FloatOrder}): grouping keys are normalized as Spark's are (memwall
 * groups -0.0 with 0.0 and every NaN together), MAX is NaN when a NaN is among the values in both engines,
 * and MIN, which memwall's IEEE kernels would make NaN, becomes the MIN of the values with NaN read as
 * +Infinity and the count of values that are numbers, NaN only when none is.
 * Distinct aggregates, FILTER clauses, other functions and any argument {@link CatalystTranslator} does not
 * translate are refused with the reason.
 *
 * <p>Made twice from the same Catalyst expressions: on the driver, to decide whether memwall takes the
 * aggregation (against the first file's schema), and in each task, against that task's file. Thread
 * safety: immutable.
 *
 * @param keys memwall's grouping keys
 * @param aggregates memwall's aggregates
 * @param slots how to fill each column of Spark's partial output from memwall's result
 */
record PartialAggregation(List<NamedExpr> keys, List<Aggregate> aggregates, List<OutputSlot> slots) {
  /** A translation, or why there is none. */
  record Result(PartialAggregation aggregation, String reason) {}

  /**
   * Translates Spark's partial aggregation over a scan of {@code schema} (a file's memwall schema).
   *
   * @param grouping the partial HashAggregate's grouping expressions
   * @param functions its aggregate expressions, all of mode Partial
   * @param output the types of its output columns, in order
   */
  static Result of(List<NamedExpression> grouping, List<AggregateExpression> functions, StructType output,
      Schema schema) {
    try {
      return new Result(translate(grouping, functions, output, schema), null);
    } catch (CatalystTranslator.Untranslatable e) {
      return new Result(null, e.getMessage());
    }
  }

  private static PartialAggregation translate(List<NamedExpression> grouping, List<AggregateExpression> functions,
      StructType output, Schema schema) throws CatalystTranslator.Untranslatable {
    CatalystTranslator translator = new CatalystTranslator(new Binder(schema),
        Set.copyOf(schema.getFields().stream().map(Field::getName).toList()));
    List<NamedExpr> keys = new ArrayList<>();
    List<Aggregate> aggregates = new ArrayList<>();
    List<OutputSlot> slots = new ArrayList<>();
    for (NamedExpression key : grouping) {
      keys.add(translator.translate(FloatOrder.normalizedKey((Expression) key)).as("k" + keys.size()));
      slots.add(new OutputSlot(OutputSlot.Kind.VALUE, keys.size() - 1));
    }
    for (AggregateExpression function : functions) {
      if (function.mode() != Partial$.MODULE$ || function.isDistinct() || function.filter().isDefined()) {
        throw new CatalystTranslator.Untranslatable(function.sql() + ": memwall computes plain partial aggregates"
            + " (not DISTINCT, no FILTER)");
      }
      AggregateFunction f = function.aggregateFunction();
      int column = keys.size() + aggregates.size();
      String name = "a" + aggregates.size();
      switch (f) {
        case Sum sum -> {
          aggregates.add(Aggregate.sum(translator.translate(sum.child()), name));
          boolean decimal = sum.aggBufferAttributes().size() == 2; // decimal sums: the sum and isEmpty
          slots.add(new OutputSlot(decimal ? OutputSlot.Kind.VALUE_OR_ZERO : OutputSlot.Kind.VALUE, column));
          if (decimal) {
            slots.add(new OutputSlot(OutputSlot.Kind.IS_NULL, column));
          }
        }
        case Average average -> {
          Expr argument = translator.translate(average.child());
          aggregates.add(Aggregate.sum(argument, name));
          aggregates.add(Aggregate.count(argument, name + "n"));
          slots.add(new OutputSlot(OutputSlot.Kind.VALUE_OR_ZERO, column));
          slots.add(new OutputSlot(OutputSlot.Kind.COUNT, column + 1));
        }
        case Count count -> {
          List<Expression> arguments = CollectionConverters.asJava(count.children());
          if (arguments.size() != 1) {
            throw new CatalystTranslator.Untranslatable(f.sql() + ": memwall counts one argument");
          }
          Expression argument = arguments.getFirst();
          aggregates.add(argument instanceof Literal literal && literal.value() != null ? Aggregate.countStar(name)
              : Aggregate.count(translator.translate(argument), name));
          slots.add(new OutputSlot(OutputSlot.Kind.COUNT, column));
        }
        case Min min -> {
          Expr argument = translator.translate(min.child());
          if (FloatOrder.isFloating(min.child())) { // NaN is not the least, as Math.min would make it
            aggregates.add(Aggregate.min(FloatOrder.nanAsInfinity(argument), name));
            aggregates.add(Aggregate.sum(FloatOrder.isNumber(argument), name + "n"));
            slots.add(new OutputSlot(OutputSlot.Kind.TOTAL_MIN, column));
          } else {
            aggregates.add(Aggregate.min(argument, name));
            slots.add(new OutputSlot(OutputSlot.Kind.VALUE, column));
          }
        }
        case Max max -> { // of doubles too: NaN is the greatest, and Math.max's NaN wins as in Spark
          aggregates.add(Aggregate.max(translator.translate(max.child()), name));
          slots.add(new OutputSlot(OutputSlot.Kind.VALUE, column));
        }
        default -> throw new CatalystTranslator.Untranslatable("memwall does not compute " + f.prettyName()
            + " (" + f.sql() + ")");
      }
    }
    if (slots.size() != output.fields().length) {
      throw new CatalystTranslator.Untranslatable("Spark's partial output has " + output.fields().length
          + " columns where memwall's makes " + slots.size());
    }
    PartialAggregation aggregation = new PartialAggregation(List.copyOf(keys), List.copyOf(aggregates),
        List.copyOf(slots));
    aggregation.check(schema, output);
    return aggregation;
  }

  /** The memwall plan over {@code table}: its rows that pass {@code filter} (null: all), aggregated. */
  Plan plan(Table table, Expr filter) {
    Plan scan = Plan.scan(table);
    return (filter == null ? scan : scan.filter(filter)).aggregate(keys, aggregates.toArray(Aggregate[]::new));
  }

  /** Checks that memwall's result types hold every slot's Spark type. */
  private void check(Schema schema, StructType output) throws CatalystTranslator.Untranslatable {
    Schema result;
    try {
      result = plan(Table.borrow(schema, List.of(), null), null).schema();
    } catch (IllegalArgumentException e) {
      throw new CatalystTranslator.Untranslatable("memwall refuses the aggregation: " + e.getMessage());
    }
    checkSlots(slots, result, output);
  }

  /**
   * Checks that the columns of memwall's aggregation {@code result} hold the Spark type of each slot's
   * column of {@code output}.
   *
   * @throws CatalystTranslator.Untranslatable naming the first column that does not
   */
  static void checkSlots(List<OutputSlot> slots, Schema result, StructType output)
      throws CatalystTranslator.Untranslatable {
    for (int i = 0; i < slots.size(); i++) {
      OutputSlot slot = slots.get(i);
      DataType spark = output.fields()[i].dataType();
      ColumnType memwall = ColumnType.of(result.getFields().get(slot.column()));
      boolean fits = switch (slot.kind()) {
        case COUNT, IS_EMPTY -> memwall.isIntegral() && memwall.kind() != ColumnType.Kind.DATE;
        case TOTAL_MIN -> CatalystTranslator.agrees(spark, memwall)
            && ColumnType.of(result.getFields().get(slot.column() + 1)).isIntegral();
        case IS_NULL -> true;
        // an average of integers: Spark sums doubles, memwall exact int64s (then converted)
        case VALUE_OR_ZERO, SUM_UNLESS_NULL -> CatalystTranslator.agrees(spark, memwall)
            || (!(spark instanceof DecimalType) && memwall.isIntegral() && memwall.kind() != ColumnType.Kind.DATE
                && spark.equals(DataTypes.DoubleType));
        case VALUE -> CatalystTranslator.agrees(spark, memwall)
            || (DataTypes.BooleanType.equals(spark) && memwall.kind() == ColumnType.Kind.INT32);
      };
      if (!fits) {
        throw new CatalystTranslator.Untranslatable("column " + output.fields()[i].name() + " of Spark's"
            + " aggregation output is " + spark.simpleString() + " but memwall computes " + memwall);
      }
    }
  }

  /** One line for EXPLAIN: memwall's keys and aggregates. */
  String describe() {
    return "keys " + keys.stream().map(k -> dev.memwall.core.expr.ExprText.of(k.expr())).toList() + ", aggregates "
        + aggregates;
  }
}
