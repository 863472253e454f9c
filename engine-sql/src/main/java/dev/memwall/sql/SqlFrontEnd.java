package dev.memwall.sql;

import io.substrait.isthmus.calcite.SubstraitOperatorTable;
import io.substrait.plan.Plan;
import java.util.List;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorImpl;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.sql2rel.StandardConvertletTable;

/**
 * SQL text to a Substrait plan as Isthmus' {@code SubstraitSqlToCalcite} and {@code SqlToSubstrait}
 * do it (Calcite's parser with lenient conformance, validation, conversion to relational algebra,
 * redundant projections removed, Substrait), with a validator whose operator table also knows the
 * names other engines' SQL uses for standard functions: {@code substr(s, start[, length])} (DuckDB,
 * PostgreSQL, Oracle, BigQuery) is validated as {@code substring(s from start [for length])}, so the
 * plan carries Substrait's {@code substring}.
 *
 * <p>Words Calcite's grammar reserves (for example {@code value}) still need quoting as names: the
 * grammar is compiled into Calcite's parser.
 *
 * <p>Thread safety: calls may run concurrently; each builds its own validator, converter and cluster
 * (they keep per-statement state), and shares only what is read: the declared catalog, the type
 * factory, the operator table and the function converters ({@link RelToSubstrait}).
 */
final class SqlFrontEnd {
  /**
   * Isthmus' parser configuration but for the grammar: Calcite's query grammar, without the DDL
   * statements Isthmus' parser also reads.
   */
  static final SqlParser.Config PARSER = SqlParser.config()
      .withUnquotedCasing(Casing.TO_UPPER)
      .withConformance(SqlConformanceEnum.LENIENT);

  /** {@code SUBSTR}: validated by being rewritten to the standard {@code SUBSTRING} call before anything else. */
  static final SqlFunction SUBSTR = new SqlFunction("SUBSTR", SqlKind.OTHER_FUNCTION, ReturnTypes.ARG0_NULLABLE_VARYING,
      null, OperandTypes.or(OperandTypes.STRING_INTEGER, OperandTypes.STRING_INTEGER_INTEGER),
      SqlFunctionCategory.STRING) {
    @Override
    public SqlNode rewriteCall(SqlValidator validator, SqlCall call) {
      return SqlStdOperatorTable.SUBSTRING.createCall(call.getParserPosition(), call.getOperandList());
    }
  };

  private static final SqlOperatorTable OPERATORS =
      SqlOperatorTables.chain(SubstraitOperatorTable.INSTANCE, SqlOperatorTables.of(SUBSTR));

  private SqlFrontEnd() {}

  /**
   * The plan of the text's statements, one root each.
   *
   * @throws SqlParseException when the text does not parse
   * @throws RuntimeException (Calcite's or Isthmus') when it does not validate or convert
   */
  static Plan plan(String sql, Prepare.CatalogReader catalogReader) throws SqlParseException {
    List<SqlNode> statements = SqlParser.create(sql, PARSER).parseStmtList();
    SqlValidator validator = new Validator(catalogReader);
    SqlToRelConverter converter = new SqlToRelConverter(null, validator, catalogReader, cluster(),
        StandardConvertletTable.INSTANCE, SqlToRelConverter.CONFIG);
    var plan = Plan.builder().version(Plan.Version.builder().from(Plan.Version.DEFAULT_VERSION).producer("memwall").build());
    for (SqlNode statement : statements) {
      RelRoot root = converter.convertQuery(statement, true, true);
      plan.addRoots(RelToSubstrait.convert(root.withRel(withoutRedundantProjects(root.rel))));
    }
    return plan.build();
  }

  private static RelOptCluster cluster() {
    return RelOptCluster.create(new HepPlanner(HepProgram.builder().build()), new RexBuilder(SqlCatalog.TYPE_FACTORY));
  }

  /** Projections that only pass their input on removed, as Isthmus does after converting a query. */
  private static RelNode withoutRedundantProjects(RelNode rel) {
    HepPlanner planner = new HepPlanner(HepProgram.builder().addRuleInstance(CoreRules.PROJECT_REMOVE).build());
    planner.setRoot(rel);
    return planner.findBestExp();
  }

  /** Calcite's validator (as Isthmus configures it) over the widened operator table. */
  private static final class Validator extends SqlValidatorImpl {
    Validator(Prepare.CatalogReader catalogReader) {
      super(OPERATORS, catalogReader, catalogReader.getTypeFactory(), SqlValidator.Config.DEFAULT);
    }
  }
}
