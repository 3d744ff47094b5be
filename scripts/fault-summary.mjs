#!/usr/bin/env node
// Prints the rows the fault suites recorded in this run (.temporal/fault-summary.jsonl) as a markdown table.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const file = join(process.cwd(), '.temporal/fault-summary.jsonl');
let rows = [];
try {
  rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
} catch {
  console.log('no fault-suite rows recorded');
  process.exit(0);
}
console.log('| suite | cases | passed | notes |\n| --- | ---: | ---: | --- |');
for (const r of rows) console.log(`| ${r.suite} | ${r.cases} | ${r.passed} | ${r.notes} |`);
if (process.argv.includes('--reset')) rmSync(file);
