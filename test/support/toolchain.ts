// Test access to the project's Temporal binaries (resolved, and if needed installed, by the toolchain script).
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

export const projectRoot = resolve(__dirname, '../..');

export function binaryPath(name: 'temporal' | 'temporal-test-server' | 'weed'): string {
  const script = join(projectRoot, 'scripts/temporal-toolchain.mjs');
  execFileSync(process.execPath, [script], { stdio: 'ignore' });
  const out = execFileSync(process.execPath, [script, '--print'], { encoding: 'utf8' });
  const path = new RegExp(`^${name}=(.+)$`, 'm').exec(out)?.[1];
  if (!path) throw new Error(`${name} is not available; run node scripts/temporal-toolchain.mjs`);
  return path;
}
