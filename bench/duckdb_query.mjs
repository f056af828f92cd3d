// The DuckDB baseline (issue 32): the benchmark's `offers` query as SQL over the same CSV, with
// @duckdb/node-api (installed by bench/run.sh into bench/out/node_modules, git-ignored).
//   node bench/out/duckdb_query.mjs CATALOG.csv [PROVIDER] [--gpu NAME]   (run.sh copies it beside
//   node_modules: an ES module finds packages from its own directory)
// Same question as `gpuadvise --catalog FILE --provider-name bench offers --gpu A100 --plan on-demand
// --sort price-per-gpu --limit 10`: the A100 rows with an on-demand price, one per (instance type,
// count, region) with the lowest price over zones, sorted by price per GPU, top 10. It maps only the
// generator's accelerator name (no GPU catalog, no variant choice, no lint); PROVIDER (optional) is a
// constant column filtered on, as --provider is. --gpu NAME (default A100) asks for another
// accelerator name, as the real-shaped table's question (--gpu L4) does. Columns are found by name
// (their order differs per cloud, as in gpuadvise).
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
let gpu = 'A100';
const at = args.indexOf('--gpu');
if (at >= 0) {
    gpu = args[at + 1];
    args.splice(at, 2);
}
const [file, provider] = args;
if (!file) {
    console.error('usage: node bench/duckdb_query.mjs CATALOG.csv [PROVIDER] [--gpu NAME]');
    process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const db = await instance.connect();
const quoted = file.replaceAll("'", "''");
const sql = `
  SELECT InstanceType, AcceleratorCount, Region, min(Price) AS price, min(Price) / AcceleratorCount AS per_gpu
  FROM read_csv('${quoted}', header = true, quote = '"', escape = '"', types = {
      'InstanceType': 'VARCHAR', 'AcceleratorName': 'VARCHAR', 'AcceleratorCount': 'DOUBLE',
      'Price': 'DOUBLE', 'Region': 'VARCHAR'})
  WHERE AcceleratorName = $gpu AND Price > 0 ${provider ? "AND 'bench' = $provider" : ''}
  GROUP BY InstanceType, AcceleratorCount, Region
  ORDER BY per_gpu, InstanceType, AcceleratorCount, Region
  LIMIT 10`;
const reader = await db.runAndReadAll(sql, provider ? { gpu, provider } : { gpu });
for (const row of reader.getRows()) console.log(row.join('  '));
