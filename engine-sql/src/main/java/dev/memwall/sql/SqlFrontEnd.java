package dev.memwall.sql;

import io.substrait.isthmus.calcite.SubstraitOperatorTable;
import io.substrait.plan.Plan;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.config.NullCollation;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.rules.ProjectRemoveRule;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SelectScope;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorImpl;
import org.apache.calcite.sql.validate.SqlValidatorScope;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.sql2rel.StandardConvertletTable;
import org.apache.calcite.util.Util;

/**
 * SQL text to a Substrait plan as Isthmus' {@code SubstraitSqlToCalcite} and {@code SqlToSubstrait}
 * do it (Calcite's parser with lenient conformance, validation, conversion to relational algebra,
 * redundant projections removed, Substrait), with three differences:
 *
 * <ul>
 *   <li>Unquoted names keep the spelling the statement gives them, and names are matched without
 *       regard to case ({@link SqlCatalog}), so {@code select sum(x) as revenue} returns a column
 *       {@code revenue} and {@code select l_orderkey} one named {@code l_orderkey}; Isthmus' parser
 *       upper-cases them.
 *   <li>An ORDER BY term without NULLS FIRST or LAST sorts nulls last in both directions, as
 *       memwall's sort and DuckDB do (Calcite's default puts them first when descending); the plan
 *       carries the direction either way.
 *   <li>The validator's operator table also knows the names other engines' SQL uses for standard
 *       functions: {@code substr(s, start[, length])} (DuckDB, PostgreSQL, Oracle, BigQuery) is
 *       validated as {@code substring(s from start [for length])}, so the plan carries Substrait's
 *       {@code substring}.
 * </ul>
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
   * Isthmus' parser configuration but for the casing of unquoted names, which stays as written, and
   * the grammar: Calcite's query grammar, without the DDL statements Isthmus' parser also reads.
   */
  static final SqlParser.Config PARSER = SqlParser.config()
      .withUnquotedCasing(Casing.UNCHANGED)
      .withQuotedCasing(Casing.UNCHANGED)
      .withCaseSensitive(false)
      .withConformance(SqlConformanceEnum.LENIENT);

  /** Calcite's default validation (as Isthmus') with nulls last in either direction by default. */
  private static final SqlValidator.Config VALIDATION =
      SqlValidator.Config.DEFAULT.withDefaultNullCollation(NullCollation.LAST);

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
    var plan = Plan.builder().version(Plan.Version.builder().from(Plan.Version.DEFAULT_VERSION).producer("memwall").build());
    for (RelRoot root : relational(sql, catalogReader)) {
      plan.addRoots(RelToSubstrait.convert(root.withRel(withoutRedundantProjects(root.rel))));
    }
    return plan.build();
  }

  /** The text's statements validated and converted to Calcite's relational algebra, as they come. */
  static List<RelRoot> relational(String sql, Prepare.CatalogReader catalogReader) throws SqlParseException {
    return relational(sql, catalogReader, new Validator(catalogReader, true));
  }

  /** As {@link #relational(String, Prepare.CatalogReader)} with {@code validator} (for one statement's text). */
  static List<RelRoot> relational(String sql, Prepare.CatalogReader catalogReader, SqlValidator validator)
      throws SqlParseException {
    List<SqlNode> statements = SqlParser.create(sql, PARSER).parseStmtList();
    SqlToRelConverter converter = new SqlToRelConverter(null, validator, catalogReader, cluster(),
        StandardConvertletTable.INSTANCE, SqlToRelConverter.CONFIG);
    List<RelRoot> roots = new ArrayList<>();
    for (SqlNode statement : statements) {
      roots.add(converter.convertQuery(statement, true, true));
    }
    return roots;
  }

  private static RelOptCluster cluster() {
    return RelOptCluster.create(new HepPlanner(HepProgram.builder().build()), new RexBuilder(SqlCatalog.TYPE_FACTORY));
  }

  /**
   * Projections that only pass their input on removed, as Isthmus does after converting a query
   * with Calcite's {@code PROJECT_REMOVE} rule, but in one pass from the leaves up rather than
   * through a new rule planner per statement: a trivial projection ({@link
   * ProjectRemoveRule#isTrivial}) gives way to its input, which, when it is a projection itself,
   * takes the removed one's field names, as the rule does. A projection that is not trivial stays so
   * when its input's trivial projections are gone (triviality depends on its expressions and its
   * input's field types, which removing one does not change), so one pass reaches the rule's fixpoint.
   * Relations inside subquery expressions are left as they are, as the rule's planner leaves them.
   */
  static RelNode withoutRedundantProjects(RelNode rel) {
    List<RelNode> inputs = rel.getInputs();
    List<RelNode> stripped = new ArrayList<>(inputs.size());
    boolean changed = false;
    for (RelNode input : inputs) {
      RelNode without = withoutRedundantProjects(input);
      stripped.add(without);
      changed |= without != input;
    }
    RelNode node = changed ? rel.copy(rel.getTraitSet(), stripped) : rel;
    if (!(node instanceof Project project) || !ProjectRemoveRule.isTrivial(project)) {
      return node;
    }
    return project.getInput() instanceof Project child
        ? child.copy(child.getTraitSet(), child.getInput(), child.getProjects(), project.getRowType())
        : project.getInput();
  }

  /**
   * Calcite's validator over the widened operator table, which names a select item that is a bare
   * column reference as the column is stored ({@code select ID from orders} returns {@code id});
   * Calcite names it as the statement spells it.
   *
   * <p>It also expands a SELECT's select list ({@link #expandStar}) once rather than each time it is
   * asked: Calcite expands the whole list again for every ORDER BY term that names a select item, in
   * validation and again in the conversion to relational algebra, and once more to convert the list,
   * which re-derives every item's type each time. The expansion is a function of the list's items and
   * the SELECT's scopes, which validation has settled before the first request (the list is
   * validated before the ORDER BY), so a request for the same items gets the kept expansion; a list
   * whose items have changed since is expanded anew. One validator validates one statement on one
   * thread, so what it keeps needs no guard.
   */
  static final class Validator extends SqlValidatorImpl {
    /** Each SELECT's expansion of its select list (without system columns), with the items it expanded; null: none kept. */
    private final Map<SqlSelect, Expanded> expanded;
    /** How many expansions were answered from the kept ones. */
    private int reused;

    /** An expansion: the select list's items when it was made (by identity), and its items. */
    private record Expanded(List<SqlNode> from, List<SqlNode> items) {
      boolean of(SqlNodeList selectList) {
        if (selectList.size() != from.size()) {
          return false;
        }
        for (int i = 0; i < from.size(); i++) {
          if (selectList.get(i) != from.get(i)) {
            return false;
          }
        }
        return true;
      }
    }

    /** A validator over the catalog's tables; {@code keepExpansions} false expands a select list each time, as Calcite does. */
    Validator(Prepare.CatalogReader catalogReader, boolean keepExpansions) {
      super(OPERATORS, catalogReader, catalogReader.getTypeFactory(), VALIDATION);
      this.expanded = keepExpansions ? new IdentityHashMap<>() : null;
    }

    @Override
    public SqlNodeList expandStar(SqlNodeList selectList, SqlSelect select, boolean includeSystemVars) {
      if (includeSystemVars || expanded == null) {
        return super.expandStar(selectList, select, includeSystemVars);
      }
      Expanded kept = expanded.get(select);
      if (kept != null && kept.of(selectList)) {
        SelectScope scope = getRawSelectScope(select);
        if (scope != null) {
          scope.setExpandedSelectList(new ArrayList<>(kept.items())); // as an expansion by Calcite leaves it
        }
        reused++;
        return new SqlNodeList(kept.items(), SqlParserPos.ZERO);
      }
      List<SqlNode> from = new ArrayList<>(selectList.getList());
      SqlNodeList list = super.expandStar(selectList, select, false);
      expanded.put(select, new Expanded(from, new ArrayList<>(list.getList())));
      return list;
    }

    /** How many select-list expansions the kept ones answered so far. */
    int reused() {
      return reused;
    }

    @Override
    protected RelDataType validateSelectList(SqlNodeList items, SqlSelect select, RelDataType targetRowType) {
      SqlValidatorScope scope = getWhereScope(select);
      for (int i = 0; i < items.size(); i++) {
        if (items.get(i) instanceof SqlIdentifier column && !column.isStar()) {
          String stored = storedName(column, scope);
          if (stored != null && !stored.equals(Util.last(column.names))) {
            items.set(i, SqlStdOperatorTable.AS.createCall(column.getParserPosition(), column,
                new SqlIdentifier(stored, column.getParserPosition())));
          }
        }
      }
      return super.validateSelectList(items, select, targetRowType);
    }

    /** The name of the column {@code column} refers to, as stored; null when it refers to none (validation then says why). */
    private static String storedName(SqlIdentifier column, SqlValidatorScope scope) {
      try {
        return Util.last(scope.fullyQualify(column).identifier.names);
      } catch (CalciteContextException e) {
        return null;
      }
    }
  }
}
