"""DuckDB from Python on a persistent database loaded from memwall's Arrow files, with the conversions
DuckDbOracle applies (dictionary codes -> VARCHAR, int64 cents -> DECIMAL(15,scale)); timed as TpchRunner
times: every query warmed W times first, then R timed runs per query; medians."""
import glob, os, sys, time, statistics
import duckdb, pyarrow as pa, pyarrow.ipc as ipc

data, db_path, threads, warm, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
fresh = not os.path.exists(db_path)
con = duckdb.connect(db_path)
con.execute(f"PRAGMA threads={threads}")
if fresh:
    for table in ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]:
        tables = [ipc.open_file(f).read_all() for f in sorted(glob.glob(f"{data}/{table}-*.arrow"))]
        arrow = pa.concat_tables(tables)
        select = []
        for field in arrow.schema:
            col = '"' + field.name + '"'
            meta = field.metadata or {}
            scale = meta.get(b"memwall.decimal.scale")
            if pa.types.is_dictionary(field.type):
                select.append(f"{col}::VARCHAR AS {col}")
            elif scale is not None:
                s = int(scale)
                unit = "1" if s == 0 else "0." + "0" * (s - 1) + "1"
                select.append(f"({col}::DECIMAL(18,0) * {unit})::DECIMAL(15,{s}) AS {col}")
            else:
                select.append(f"{col} AS {col}")
        con.register("src", arrow)
        con.execute(f"CREATE TABLE {table} AS SELECT {', '.join(select)} FROM src")
        con.unregister("src")
    con.execute("CHECKPOINT")
sqls = {q: open(f"q{q}.sql").read() for q in range(1, 23)}
def run(q):
    text = "\n".join(l for l in sqls[q].splitlines() if not l.strip().startswith("--"))
    statements = [s for s in text.split(";") if s.strip()]
    start = time.perf_counter_ns()
    for s in statements[:-1]:
        con.execute(s)
    rows = con.execute(statements[-1]).fetchall()
    return time.perf_counter_ns() - start, len(rows)
first = {}
for q in range(1, 23):
    for i in range(warm):
        t, _ = run(q)
        first.setdefault(q, t)
total = 0
for q in range(1, 23):
    times = []
    for i in range(runs):
        t, n = run(q)
        times.append(t)
    med = sorted(times)[(len(times) - 1) // 2]
    total += med
    print(f"Q{q} rows {n} median_ms {med/1e6:.1f} first_ms {first.get(q, 0)/1e6:.1f}")
print(f"total median_ms {total/1e6:.1f} duckdb {duckdb.__version__}")
