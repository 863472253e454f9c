package dev.memwall.substrait;

import static dev.memwall.substrait.Fixture.B;
import static dev.memwall.substrait.Fixture.N;
import static dev.memwall.substrait.Fixture.call;
import static dev.memwall.substrait.SubstraitPlansTest.plan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import io.substrait.expression.EnumArg;
import io.substrait.expression.Expression;
import io.substrait.expression.Expression.AggregationInvocation;
import io.substrait.expression.ExpressionCreator;
import io.substrait.expression.FieldReference;
import io.substrait.plan.Plan;
import io.substrait.relation.Aggregate;
import io.substrait.relation.Join;
import io.substrait.relation.Rel;
import io.substrait.relation.Set;
import io.substrait.type.NamedStruct;
import java.math.BigDecimal;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every construct the consumer refuses, refused while the plan is prepared (nothing has run) with
 * an {@link UnsupportedPlanException} whose message names it and its position.
 */
@ExtendWith(LeakCheck.class)
class RefusalTest {

  /** A filter over t with {@code condition}. */
  private static Plan filterT(Function<Rel, Expression> condition) {
    return plan(B.filter(condition, Fixture.scanT()), Fixture.T_COLUMNS.toArray(String[]::new));
  }

  /** A project over t appending {@code value}, emitting it alone. */
  private static Plan projectT(Function<Rel, Expression> value) {
    return plan(B.project(input -> List.of(value.apply(input)), B.remap(6), Fixture.scanT()), "v");
  }

  private static Plan aggregateT(Function<Rel, Aggregate.Measure> measure) {
    return plan(B.aggregate(input -> B.grouping(), input -> List.of(measure.apply(input)), Fixture.scanT()), "m");
  }

  private static Plan joinTU(Join.JoinType type, Function<List<Rel>, Expression> condition) {
    Rel t = Fixture.scanT();
    Rel u = Fixture.scanU();
    Rel join = B.join(input -> condition.apply(List.of(input.left(), input.right())), type, t, u);
    return plan(join, join.getRecordType().fields().stream().map(f -> "c").toList().toArray(String[]::new));
  }

  /** u where uid = the outer row's field 0. */
  private static Rel correlatedFilterU() {
    return B.filter(inner -> call("equal", N.BOOLEAN, B.fieldReference(inner, 0),
        FieldReference.newRootStructOuterReference(0, N.I64, 1)), Fixture.scanU());
  }

  /** A global aggregate of {@code measure} (null: max(uid)) over {@link #correlatedFilterU}. */
  private static Rel correlatedU(Aggregate.Measure measure) {
    return B.aggregate(inner -> B.grouping(), inner -> List.of(measure != null ? measure : B.max(inner, 0)),
        correlatedFilterU());
  }

  private static Expression idEqualsUid(List<Rel> inputs) {
    return call("equal", N.BOOLEAN, B.fieldReference(inputs, 0), B.fieldReference(inputs, 6));
  }

  private static String[] names(int count) {
    return java.util.stream.IntStream.range(0, count).mapToObj(i -> "c" + i).toArray(String[]::new);
  }

  private static Arguments refused(String message, Supplier<Plan> plan) {
    return Arguments.of(message, plan);
  }

  static Stream<Arguments> refusals() {
    Rel t = Fixture.scanT();
    return Stream.of(
        // plans and relations
        refused("plan: 2 roots (only one)", () -> Plan.builder().addRoots(B.root(t), B.root(t)).build()),
        refused("root: 1 names for 6 fields (nested names are not supported)", () -> plan(t, "only")),
        refused("root > read: table nope is not in the catalog (it has [t, u])",
            () -> plan(B.namedScan(List.of("nope"), List.of("id"), List.of(N.I64)), "id")),
        refused("root > read: table t has no column 'zzz'",
            () -> plan(B.namedScan(List.of("t"), List.of("zzz"), List.of(N.I64)), "zzz")),
        refused("root > read: a nested schema (only top-level columns are read)",
            () -> plan(io.substrait.relation.NamedScan.builder().addNames("t").initialSchema(NamedStruct.of(
                List.of("id", "inner"), N.struct(N.struct(N.I64)))).build(), "id")),
        refused("root > read: read of EmptyScan (only named tables of the catalog)",
            () -> plan(B.emptyScan(), new String[0])),
        refused("root > set: relation set", () -> plan(B.set(Set.SetOp.UNION_ALL, t, Fixture.scanT()),
            Fixture.T_COLUMNS.toArray(String[]::new))),
        refused("root > filter: emit of field 9 of 6", () -> plan(B.filter(input -> B.bool(true), B.remap(9),
            Fixture.scanT()), "x")),
        refused("root > aggregate: 2 grouping sets (only one: GROUPING SETS, ROLLUP and CUBE are not supported)",
            () -> plan(Aggregate.builder().input(t).addGroupings(B.grouping(t, 0), B.grouping(t, 1)).build(),
                "a", "b")),
        refused("root > aggregate: an aggregate without groupings or measures",
            () -> plan(Aggregate.builder().input(t).build(), new String[0])),
        refused("root > aggregate: aggregate function 'count' with a filter",
            () -> aggregateT(input -> B.measure(Fixture.aggregate("count", N.I64, AggregationInvocation.ALL),
                B.bool(true)))),
        refused("root > aggregate: aggregate functions over DISTINCT values beside others (only measures that are all "
            + "over the DISTINCT values of one argument)", () -> plan(Aggregate.builder().input(t)
                .addGroupings(B.grouping(t, 1))
                .addMeasures(B.measure(Fixture.aggregate("count", N.I64, AggregationInvocation.DISTINCT,
                    B.fieldReference(t, 0))), B.measure(Fixture.aggregate("count", N.I64, AggregationInvocation.ALL,
                    B.fieldReference(t, 0)))).build(), "g", "a", "b")),
        refused("root > aggregate: aggregate function 'sum' in phase INITIAL_TO_INTERMEDIATE (only INITIAL_TO_RESULT)",
            () -> aggregateT(input -> B.measure(Fixture.aggregate("sum", N.I64,
                Expression.AggregationPhase.INITIAL_TO_INTERMEDIATE, AggregationInvocation.ALL,
                B.fieldReference(input, 0))))),
        refused("root > aggregate: aggregate function 'sum' with 0 arguments",
            () -> aggregateT(input -> B.measure(Fixture.aggregate("sum", N.I64, AggregationInvocation.ALL)))),
        refused("root > aggregate: aggregate function 'std_dev'",
            () -> aggregateT(input -> B.measure(Fixture.aggregate("std_dev", N.FP64, AggregationInvocation.ALL,
                B.fieldReference(input, 5))))),
        refused("root > sort: sort by an expression (only by fields)", () -> plan(B.sort(input -> List.of(
            B.sortField(B.negate(B.fieldReference(input, 0)), Expression.SortDirection.ASC_NULLS_LAST)), t),
            Fixture.T_COLUMNS.toArray(String[]::new))),
        refused("root > sort: sort direction CLUSTERED", () -> plan(B.sort(input -> List.of(
            B.sortField(B.fieldReference(input, 0), Expression.SortDirection.CLUSTERED)), t),
            Fixture.T_COLUMNS.toArray(String[]::new))),
        refused("root > fetch: fetch with offset 2 (only a row count)",
            () -> plan(B.fetch(2, 5, t), Fixture.T_COLUMNS.toArray(String[]::new))),
        // joins
        refused("root > join: join type OUTER", () -> joinTU(Join.JoinType.OUTER, RefusalTest::idEqualsUid)),
        refused("root > join: join type LEFT_MARK", () -> joinTU(Join.JoinType.LEFT_MARK, RefusalTest::idEqualsUid)),
        refused("root > join: join with a post-join filter", () -> plan(Join.builder().left(t).right(Fixture.scanU())
            .joinType(Join.JoinType.INNER).postJoinFilter(B.bool(true)).build(), names(8))),
        refused("root > join: join without a condition", () -> plan(Join.builder().left(t).right(Fixture.scanU())
            .joinType(Join.JoinType.LEFT).build(), names(8))),
        refused("root > join: join type LEFT without a field = field condition across its inputs",
            () -> joinTU(Join.JoinType.LEFT, inputs -> call("lt", N.BOOLEAN, B.fieldReference(inputs, 0),
                B.fieldReference(inputs, 6)))),
        refused("root > join: join type LEFT_ANTI with a condition beyond field equalities that reads its preserved "
            + "input: [Comparison[op=GT, left=ColumnRef[name=qty], right=Literal[value=1, type=INT32]]]",
            () -> joinTU(Join.JoinType.LEFT_ANTI, inputs -> B.and(idEqualsUid(inputs),
                call("gt", N.BOOLEAN, B.fieldReference(inputs, 4), B.i32(1))))),
        refused("root > join (right) > read: table nope is not in the catalog (it has [t, u])",
            () -> plan(B.innerJoin(input -> B.bool(true), t, B.namedScan(List.of("nope"), List.of("x"),
                List.of(N.I64))), names(7))),
        // expressions
        refused("root > filter: function 'regexp_match_substring'", () -> filterT(input -> call("regexp_match_substring",
            N.STRING, B.fieldReference(input, 1), B.str("a+")))),
        refused("root > filter (in) > filter: outer reference (a correlated subquery)", () -> filterT(input ->
            B.inPredicate(B.filter(inner -> call("equal", N.BOOLEAN, B.fieldReference(inner, 0),
                FieldReference.newRootStructOuterReference(0, N.I64, 1)), B.remap(0), Fixture.scanU()),
                B.fieldReference(input, 0)))),
        refused("root > filter: IN subquery with 2 columns", () -> filterT(input -> B.inPredicate(Fixture.scanU(),
            B.fieldReference(input, 0)))),
        refused("root > filter: IN subquery whose value is not a field", () -> filterT(input -> B.inPredicate(
            B.project(inner -> List.of(), B.remap(0), Fixture.scanU()), B.negate(B.fieldReference(input, 0))))),
        refused("root > filter: subquery (SetPredicate); subqueries are not decorrelated yet",
            () -> filterT(input -> Expression.SetPredicate.builder().predicateOp(Expression.PredicateOp.PREDICATE_OP_UNIQUE)
                .tuples(Fixture.scanU()).build())),
        refused("root > filter (exists): EXISTS subquery that is not a filter correlated by field equalities",
            () -> filterT(input -> B.exists(Fixture.scanU()))),
        refused("root > filter (exists) > filter: EXISTS subquery without an inner field = outer field condition",
            () -> filterT(input -> B.exists(B.filter(inner -> call("equal", N.BOOLEAN, B.fieldReference(inner, 1),
                B.str("x")), Fixture.scanU())))),
        refused("root > filter (exists) > filter: outer reference (a correlated subquery)",
            () -> filterT(input -> B.exists(B.filter(inner -> B.and(call("equal", N.BOOLEAN, B.fieldReference(inner, 0),
                FieldReference.newRootStructOuterReference(0, N.I64, 1)), call("lt", N.BOOLEAN,
                B.negate(B.fieldReference(inner, 0)), FieldReference.newRootStructOuterReference(4, N.I32, 1))),
                Fixture.scanU())))),
        refused("root > filter (exists) > filter: EXISTS subquery correlated by 2 comparisons beyond its field "
            + "equalities (at most one: [uid < qty, uid < id])",
            () -> filterT(input -> B.exists(B.filter(inner -> B.and(call("equal", N.BOOLEAN, B.fieldReference(inner, 0),
                FieldReference.newRootStructOuterReference(0, N.I64, 1)), call("lt", N.BOOLEAN, B.fieldReference(inner, 0),
                FieldReference.newRootStructOuterReference(4, N.I32, 1)), call("gt", N.BOOLEAN,
                FieldReference.newRootStructOuterReference(0, N.I64, 1), B.fieldReference(inner, 0))),
                Fixture.scanU())))),
        refused("root > filter (exists) > filter: EXISTS subquery comparing label with grp beyond its key equalities, a "
            + "type MIN and MAX do not take (only numbers, dates and booleans)",
            () -> filterT(input -> B.exists(B.filter(inner -> B.and(call("equal", N.BOOLEAN, B.fieldReference(inner, 0),
                FieldReference.newRootStructOuterReference(0, N.I64, 1)), call("not_equal", N.BOOLEAN,
                B.fieldReference(inner, 1), FieldReference.newRootStructOuterReference(1, N.STRING, 1))),
                Fixture.scanU())))),
        refused("root > filter: NOT IN subquery with 2 columns", () -> filterT(input -> call("not", N.BOOLEAN,
            B.inPredicate(Fixture.scanU(), B.fieldReference(input, 0))))),
        refused("root > filter (not in) > filter: outer reference (a correlated subquery)", () -> filterT(input ->
            call("not", N.BOOLEAN, B.inPredicate(B.filter(inner -> call("equal", N.BOOLEAN, B.fieldReference(inner, 0),
                FieldReference.newRootStructOuterReference(0, N.I64, 1)), B.remap(0), Fixture.scanU()),
                B.fieldReference(input, 0))))),
        refused("root > filter: scalar subquery with 2 columns", () -> filterT(input -> call("gt", N.BOOLEAN,
            B.fieldReference(input, 0), B.scalarSubquery(Fixture.scanU(), N.I64)))),
        refused("root > filter: scalar subquery that is not certainly one row (only a global aggregate, possibly "
            + "projected)", () -> filterT(input -> call("gt", N.BOOLEAN, B.fieldReference(input, 0),
            B.scalarSubquery(B.project(inner -> List.of(), B.remap(0), Fixture.scanU()), N.I64)))),
        refused("root > filter (scalar) > aggregate: correlated scalar subquery over a count (a missing group counts 0, "
            + "not null)", () -> filterT(input -> call("gt", N.BOOLEAN, B.fieldReference(input, 0),
                B.scalarSubquery(correlatedU(B.measure(Fixture.aggregate("count", N.I64, AggregationInvocation.ALL))),
                    N.I64)))),
        refused("root > filter: correlated scalar subquery outside a comparison of the filter's conditions",
            () -> filterT(input -> call("is_null", N.BOOLEAN, B.scalarSubquery(correlatedU(null), N.I64)))),
        refused("root > filter (scalar) > aggregate: correlated scalar subquery whose aggregate has an emit",
            () -> filterT(input -> call("gt", N.BOOLEAN, B.fieldReference(input, 0), B.scalarSubquery(
                B.aggregate(inner -> B.grouping(), inner -> List.of(B.max(inner, 0)), B.remap(0), correlatedFilterU()),
                N.I64)))),
        refused("root > filter (scalar) > aggregate > filter: correlated scalar subquery with a comparison beyond its "
            + "field equalities: [uid < id]",
            () -> filterT(input -> call("gt", N.BOOLEAN, B.fieldReference(input, 0), B.scalarSubquery(
                B.aggregate(inner -> B.grouping(), inner -> List.of(B.max(inner, 0)), B.filter(inner -> call("lt",
                    N.BOOLEAN, B.fieldReference(inner, 0), FieldReference.newRootStructOuterReference(0, N.I64, 1)),
                    Fixture.scanU())), N.I64)))),
        refused("root > filter (scalar) > aggregate > filter: correlation on label = grp, columns a hash join does not "
            + "key on (INTEGER, BIGINT or DATE of one type)", () -> filterT(input -> call("gt", N.BOOLEAN,
                B.fieldReference(input, 0), B.scalarSubquery(B.aggregate(inner -> B.grouping(),
                    inner -> List.of(B.max(inner, 0)), B.filter(inner -> call("equal", N.BOOLEAN,
                        B.fieldReference(inner, 1), FieldReference.newRootStructOuterReference(1, N.STRING, 1)),
                    Fixture.scanU())), N.I64)))),
        refused("root > filter: IN subquery on columns a hash join does not key on (INTEGER, BIGINT or DATE of one type)",
            () -> filterT(input -> B.inPredicate(B.project(inner -> List.of(), B.remap(1), Fixture.scanU()),
                B.fieldReference(input, 1)))),
        refused("root > project: subquery (ScalarSubquery); subqueries are not decorrelated yet",
            () -> projectT(input -> B.scalarSubquery(Fixture.scanU(), N.I64))),
        refused("root > project: expression Switch", () -> projectT(input -> B.switchExpression(
            B.fieldReference(input, 0), List.of(B.switchClause(ExpressionCreator.i64(false, 1), B.i32(1))), B.i32(0)))),
        refused("root > filter: outer reference (a correlated subquery)",
            () -> filterT(input -> call("gt", N.BOOLEAN, FieldReference.newRootStructOuterReference(0, N.I64, 1),
                B.i32(1)))),
        refused("root > project: field reference 42 out of the input's 6 fields",
            () -> projectT(input -> FieldReference.newRootStructReference(42, N.I64))),
        refused("root > project: field reference [StructField{offset=0}, StructField{offset=0}] (only direct "
            + "references to input fields)", () -> projectT(input -> io.substrait.expression.ImmutableFieldReference.builder()
            .addSegments(FieldReference.StructField.of(0), FieldReference.StructField.of(0)).type(N.I64).build())),
        refused("root > project: function 'extract' with arguments [FieldReference{segments=[StructField{offset=3}], "
            + "type=Date{nullable=true}}]", () -> projectT(input -> call("extract", N.I64, B.fieldReference(input, 3)))),
        refused("root > filter: function 'and' without operands", () -> filterT(input -> call("and", N.BOOLEAN))),
        refused("root > filter: function 'not' with 2 arguments (expected 1)", () -> filterT(input -> call("not",
            N.BOOLEAN, B.bool(true), B.bool(false)))),
        refused("root > filter: function 'equal' with a non-value argument EnumArg{value=YEAR}",
            () -> filterT(input -> call("equal", N.BOOLEAN, EnumArg.of("YEAR"), B.fieldReference(input, 0)))),
        refused("root > filter: function 'add' of a date that is not a literal and an interval",
            () -> filterT(input -> call("lt", N.BOOLEAN, B.fieldReference(input, 3), call("add", N.DATE,
                B.fieldReference(input, 3), ExpressionCreator.intervalYear(false, 1, 0))))),
        refused("root > filter: function 'subtract' of a date and an interval with a time of day",
            () -> filterT(input -> call("lt", N.BOOLEAN, B.fieldReference(input, 3), call("subtract", N.DATE,
                Fixture.date("1998-12-01"), ExpressionCreator.intervalDay(false, 1, 30))))),
        refused("root > filter: function 'like' with 3 arguments (an escape character is not supported)",
            () -> filterT(input -> call("like", N.BOOLEAN, B.fieldReference(input, 1), B.str("a%"), B.str("!")))),
        refused("root > filter: function 'like' whose pattern is not a string literal",
            () -> filterT(input -> call("like", N.BOOLEAN, B.fieldReference(input, 1), B.fieldReference(input, 1)))),
        refused("root > project: function 'substring' with 2 arguments (start and length are needed)",
            () -> projectT(input -> call("substring", N.STRING, B.fieldReference(input, 1), B.i32(2)))),
        refused("root > project: function 'substring' whose start is not an integer literal",
            () -> projectT(input -> call("substring", N.STRING, B.fieldReference(input, 1), B.fieldReference(input, 4),
                B.i32(1)))),
        refused("root > project: function 'substring' from 0 for 1 (start >= 1, length >= 0)",
            () -> projectT(input -> call("substring", N.STRING, B.fieldReference(input, 1), B.i32(0), B.i32(1)))),
        refused("root > project: function 'extract' of MONTH (only YEAR)",
            () -> projectT(input -> call("extract", N.I64, EnumArg.of("MONTH"), B.fieldReference(input, 3)))),
        refused("root > project: cast to Timestamp", () -> projectT(input -> B.cast(B.fieldReference(input, 0),
            N.TIMESTAMP))),
        refused("root > filter: IN list with a value that is not a literal", () -> filterT(input -> B.singleOrList(
            B.fieldReference(input, 0), B.fieldReference(input, 4)))),
        refused("root > project: null literal", () -> projectT(input -> ExpressionCreator.typedNull(N.I64))),
        refused("root > project: literal of type Timestamp",
            () -> projectT(input -> ExpressionCreator.timestamp(false, 0L))),
        refused("root > project: decimal literal 1000000000000000000000000000000 (memwall's decimals are int64 with "
            + "scale 0..18)", () -> projectT(input -> ExpressionCreator.decimal(false, new BigDecimal("1e30"), 38, 0))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void isRefusedBeforeRunningWithItsPosition(String message, Supplier<Plan> plan, EngineMemory memory) {
    try (Table t = Fixture.t(memory); Table u = Fixture.u(memory)) {
      Catalog catalog = new Catalog().register("t", t).register("u", u);
      Plan built = plan.get();
      UnsupportedPlanException e = assertThrows(UnsupportedPlanException.class,
          () -> SubstraitPlans.prepare(built, catalog));
      assertEquals(message, e.getMessage());
      assertEquals(message.substring(0, message.indexOf(": ")), e.position());
    }
  }
}
