#!/usr/bin/env node
// `npm run checks`: the type check, lint and format check npm test runs before jest, side by side (each is a
// single-threaded process: in turn they took about 100 s of a two-core machine's time, side by side about 55).
// Each one's output is printed whole once it ends, so the lines of two never interleave; the exit is 1 if any failed.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = (file) => join(dirname(fileURLToPath(import.meta.url)), '../node_modules', file);
const CHECKS = [
  ['typecheck', [bin('typescript/bin/tsc'), '--noEmit', '-p', '.']],
  ['eslint', [bin('eslint/bin/eslint.js'), '.']],
  ['prettier', [bin('prettier/bin/prettier.cjs'), '--check', '--log-level', 'warn', '.']],
];

function run([name, args]) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      process.stdout.write(`${name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds} s\n${output}`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all(CHECKS.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
