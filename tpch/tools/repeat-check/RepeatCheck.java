import dev.memwall.core.memory.EngineMemory;
import dev.memwall.tpch.data.TpchDataGenerator;
import dev.memwall.tpch.data.TpchDatabase;
import dev.memwall.tpch.query.TpchParameters;
import dev.memwall.tpch.query.TpchQueries;
import dev.memwall.tpch.run.MemwallEngine;
import dev.memwall.tpch.run.QueryEngine;
import java.nio.file.Path;
import java.util.List;

/**
 * Runs one TPC-H query many times on memwall (SQL plans, SF 1 from the cache) and compares every result,
 * values and order, with the first: a check for results that differ from run to run, which one verified
 * run per query cannot see. Usage, from the repository root:
 *
 * <pre>tpch/tools/java.sh tpch/tools/repeat-check/RepeatCheck.java QUERY RUNS THREADS [nokeep]</pre>
 *
 * By default each checked result stays open while four more runs execute, as the TPC-H runner keeps its
 * first timed result while it times the others; {@code nokeep} reads each result at once.
 */
public class RepeatCheck {
  public static void main(String[] args) throws Exception {
    int q = Integer.parseInt(args[0]);
    int n = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    Path cache = Path.of(System.getProperty("user.home"), ".cache/memwall");
    try (EngineMemory memory = EngineMemory.create("loop");
        TpchDatabase db = TpchDatabase.load(cache, 1, new TpchDataGenerator(threads, true), memory)) {
      MemwallEngine engine = new MemwallEngine(db, memory, threads, true);
      var params = TpchParameters.validation(q, 1);
      List<List<Object>> first;
      try (QueryEngine.Result r = engine.run(TpchQueries.require(q), params)) { first = r.values(); }
      int bad = 0;
      for (int i = 0; i < n; i++) {
        QueryEngine.Result kept = engine.run(TpchQueries.require(q), params);
        // like the runner: keep the first result open while more runs happen
        if (args.length < 4) { for (int j = 0; j < 4; j++) { engine.run(TpchQueries.require(q), params).close(); } }
        List<List<Object>> v = kept.values();
        kept.close();
        if (!v.equals(first)) {
          bad++;
          int rows = Math.min(v.size(), first.size());
          int diffs = 0;
          for (int r = 0; r < rows && diffs < 5; r++) {
            if (!v.get(r).equals(first.get(r))) { System.out.println("run " + i + " row " + r + ": " + v.get(r) + " vs " + first.get(r)); diffs++; }
          }
          if (v.size() != first.size()) System.out.println("run " + i + " rows " + v.size() + " vs " + first.size());
        }
      }
      System.out.println("Q" + q + ": " + bad + " of " + n + " differ");
      engine.close();
    }
  }
}
