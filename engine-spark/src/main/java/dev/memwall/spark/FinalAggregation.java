package dev.memwall.spark;

import dev.memwall.core.expr.Expr;
import dev.memwall.core.expr.NamedExpr;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.vector.BatchStream;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.EvalMode;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Average;
import org.apache.spark.sql.catalyst.expressions.aggregate.Count;
import org.apache.spark.sql.catalyst.expressions.aggregate.Final$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Max;
import org.apache.spark.sql.catalyst.expressions.aggregate.Min;
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A Spark final hash aggregation as memwall computes it: the merge of the partial rows it reads (grouping
 * keys, then each function's aggregation buffer, {@link PartialAggregation} describes them) into one
 * merged buffer per group, in Spark's layout (the grouping attributes, then every function's
 * {@code aggBufferAttributes}). Spark's own {@code evaluateExpression}s and result expressions then make
 * the output rows from the merged buffers ({@link FinalAggregateTask}), so an average's division and
 * rounding, a decimal sum's overflow check and every cast are Spark's.
 *
 * <p>The merges, per function over the input columns of its buffer: {@code sum}: the SUM of the partial
 * sums, and for a decimal also the MIN of the partial "isEmpty" flags (as 0 or 1), with the sum null
 * when any partial sum is null (Spark's mark of an overflow outside ANSI mode); {@code avg}: the SUM of
 * the sums (null when any is, as for a decimal sum) and of the counts; {@code count}: the SUM of the
 * counts; {@code max}: the MAX; {@code min}: the MIN, of doubles with NaN read as +Infinity and the count
 * of partial minimums that are numbers (NaN only when none is, as Spark orders NaN above every number).
 *
 * <p>Refused, with the reason: another mode than Final, DISTINCT, FILTER, other functions, MIN and MAX of
 * strings, a column type memwall does not hold ({@link RowBatches#columnType}), and a sum of integers
 * outside ANSI mode (Spark wraps its overflow, where memwall's exact sums throw). A decimal sum beyond
 * memwall's 18 digits fails the task with an {@link ArithmeticException} (Spark's 38 digits would hold
 * it): memwall computes decimals as scaled int64.
 *
 * <p>Made twice from the same Catalyst expressions: on the driver, to decide, and in each task. Thread
 * safety: immutable.
 *
 * @param inputTypes Spark's type of each input column (the partial rows)
 * @param keys memwall's grouping keys
 * @param aggregates memwall's aggregates
 * @param slots how each column of the merged buffer is read from memwall's result
 * @param merged the merged buffer's columns (names are positions: Spark's buffer names repeat)
 */
record FinalAggregation(DataType[] inputTypes, List<NamedExpr> keys, List<Aggregate> aggregates,
    List<OutputSlot> slots, StructType merged) {
  /** A translation, or why there is none. */
  record Result(FinalAggregation aggregation, String reason) {}

  /**
   * Translates Spark's final aggregation.
   *
   * @param input the attributes of its input rows (its child's output)
   * @param grouping its grouping expressions
   * @param functions its aggregate expressions
   */
  static Result of(List<Attribute> input, List<NamedExpression> grouping, List<AggregateExpression> functions) {
    try {
      return new Result(translate(input, grouping, functions), null);
    } catch (CatalystTranslator.Untranslatable e) {
      return new Result(null, e.getMessage());
    }
  }

  private static FinalAggregation translate(List<Attribute> input, List<NamedExpression> grouping,
      List<AggregateExpression> functions) throws CatalystTranslator.Untranslatable {
    Map<ExprId, Integer> positions = new HashMap<>();
    DataType[] types = new DataType[input.size()];
    for (int i = 0; i < types.length; i++) {
      Attribute attribute = input.get(i);
      types[i] = attribute.dataType();
      if (RowBatches.columnType(types[i]) == null) {
        throw new CatalystTranslator.Untranslatable("the input column " + attribute.name() + " is "
            + types[i].simpleString() + ", which memwall does not hold");
      }
      positions.put(attribute.exprId(), i);
    }
    List<NamedExpr> keys = new ArrayList<>();
    List<Aggregate> aggregates = new ArrayList<>();
    List<OutputSlot> slots = new ArrayList<>();
    List<StructField> merged = new ArrayList<>();
    for (NamedExpression key : grouping) {
      keys.add(Expr.col(RowBatches.name(position(key, positions))).as("k" + keys.size()));
      slots.add(new OutputSlot(OutputSlot.Kind.VALUE, keys.size() - 1));
      merged.add(field(merged, ((org.apache.spark.sql.catalyst.expressions.Expression) key).dataType()));
    }
    for (AggregateExpression function : functions) {
      if (function.mode() != Final$.MODULE$ || function.isDistinct() || function.filter().isDefined()) {
        throw new CatalystTranslator.Untranslatable(function.sql() + ": memwall merges plain final aggregates"
            + " (not DISTINCT, no FILTER)");
      }
      AggregateFunction f = function.aggregateFunction();
      List<AttributeReference> buffers = CollectionConverters.asJava(f.inputAggBufferAttributes());
      List<Expr> columns = new ArrayList<>();
      for (AttributeReference buffer : buffers) {
        columns.add(Expr.col(RowBatches.name(position(buffer, positions))));
        merged.add(field(merged, buffer.dataType()));
      }
      int column = keys.size() + aggregates.size();
      String name = "a" + aggregates.size();
      switch (f) {
        case Sum sum when buffers.size() == 2 && sum.dataType() instanceof DecimalType -> {
          sumUnlessNull(columns.getFirst(), name, aggregates, slots, column);
          aggregates.add(Aggregate.min(columns.get(1), name + "e"));
          slots.add(new OutputSlot(OutputSlot.Kind.IS_EMPTY, column + 3));
        }
        case Sum sum when buffers.size() == 1 -> {
          if (DataTypes.LongType.equals(sum.dataType()) && sum.evalContext().evalMode() != EvalMode.ANSI()) {
            throw new CatalystTranslator.Untranslatable(f.sql() + ": Spark's sum of integers outside ANSI mode"
                + " wraps on overflow, where memwall's throws");
          }
          aggregates.add(Aggregate.sum(columns.getFirst(), name));
          slots.add(new OutputSlot(OutputSlot.Kind.VALUE, column));
        }
        case Average average when buffers.size() == 2 -> {
          sumUnlessNull(columns.getFirst(), name, aggregates, slots, column);
          aggregates.add(Aggregate.sum(columns.get(1), name + "c"));
          slots.add(new OutputSlot(OutputSlot.Kind.COUNT, column + 3));
        }
        case Count count when buffers.size() == 1 -> {
          aggregates.add(Aggregate.sum(columns.getFirst(), name));
          slots.add(new OutputSlot(OutputSlot.Kind.COUNT, column));
        }
        case Min min when buffers.size() == 1 -> {
          if (FloatOrder.isFloating(min.child())) { // NaN is not the least, as Math.min would make it
            aggregates.add(Aggregate.min(FloatOrder.nanAsInfinity(columns.getFirst()), name));
            aggregates.add(Aggregate.sum(FloatOrder.isNumber(columns.getFirst()), name + "n"));
            slots.add(new OutputSlot(OutputSlot.Kind.TOTAL_MIN, column));
          } else {
            aggregates.add(Aggregate.min(columns.getFirst(), name));
            slots.add(new OutputSlot(OutputSlot.Kind.VALUE, column));
          }
        }
        case Max max when buffers.size() == 1 -> { // NaN is the greatest in both engines
          aggregates.add(Aggregate.max(columns.getFirst(), name));
          slots.add(new OutputSlot(OutputSlot.Kind.VALUE, column));
        }
        default -> throw new CatalystTranslator.Untranslatable("memwall does not merge " + f.prettyName()
            + " (" + f.sql() + ")");
      }
    }
    FinalAggregation aggregation = new FinalAggregation(types, List.copyOf(keys), List.copyOf(aggregates),
        List.copyOf(slots), DataTypes.createStructType(merged));
    aggregation.check();
    return aggregation;
  }

  /** The SUM of {@code sums}, with the counts of its non-null values and of its rows: a SUM_UNLESS_NULL slot. */
  private static void sumUnlessNull(Expr sums, String name, List<Aggregate> aggregates, List<OutputSlot> slots,
      int column) {
    aggregates.add(Aggregate.sum(sums, name));
    aggregates.add(Aggregate.count(sums, name + "v"));
    aggregates.add(Aggregate.countStar(name + "r"));
    slots.add(new OutputSlot(OutputSlot.Kind.SUM_UNLESS_NULL, column));
  }

  private static int position(NamedExpression attribute, Map<ExprId, Integer> positions)
      throws CatalystTranslator.Untranslatable {
    Integer position = attribute instanceof Attribute ? positions.get(attribute.exprId()) : null;
    if (position == null) {
      throw new CatalystTranslator.Untranslatable(attribute.name() + " is not a column of the aggregation's input");
    }
    return position;
  }

  private static StructField field(List<StructField> fields, DataType type) {
    return DataTypes.createStructField("_" + fields.size(), type, true);
  }

  /** The memwall plan merging the partial rows {@code input} gives ({@link RowBatches} of {@link #inputTypes}). */
  Plan plan(BatchStream input) {
    return Plan.scan(input).aggregate(keys, aggregates.toArray(Aggregate[]::new));
  }

  /** Checks that memwall computes the plan and its results hold the merged buffer's types. */
  private void check() throws CatalystTranslator.Untranslatable {
    List<String> names = new ArrayList<>();
    List<ColumnType> types = new ArrayList<>();
    for (int i = 0; i < inputTypes.length; i++) {
      names.add(RowBatches.name(i));
      types.add(RowBatches.columnType(inputTypes[i]));
    }
    Schema result;
    try (var builder = new dev.memwall.core.vector.TableBuilder(names, types, null)) {
      result = Plan.scan(Table.borrow(builder.schema(), List.of(), null))
          .aggregate(keys, aggregates.toArray(Aggregate[]::new)).schema();
    } catch (IllegalArgumentException e) {
      throw new CatalystTranslator.Untranslatable("memwall refuses the merge: " + e.getMessage());
    }
    PartialAggregation.checkSlots(slots, result, merged);
  }

  /** One line for EXPLAIN: memwall's keys and aggregates. */
  String describe() {
    return "keys " + keys.stream().map(k -> dev.memwall.core.expr.ExprText.of(k.expr())).toList() + ", merges "
        + aggregates;
  }
}
