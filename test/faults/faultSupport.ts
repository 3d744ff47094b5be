// Fault suites run a fast subset in CI and the full counts with `npm run test:faults` (COUNTERSIGN_FAULTS_FULL=1).
// Each suite appends one summary row; scripts/fault-summary.mjs prints them as a table.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/toolchain';

export const full = process.env.COUNTERSIGN_FAULTS_FULL === '1';
export const count = (fast: number, complete: number) => (full ? complete : fast);

export function recordSummary(row: { suite: string; cases: number; passed: number; notes: string }): void {
  mkdirSync(join(projectRoot, '.temporal'), { recursive: true });
  appendFileSync(join(projectRoot, '.temporal/fault-summary.jsonl'), JSON.stringify({ ...row, at: new Date().toISOString(), full }) + '\n');
}
