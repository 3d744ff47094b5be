// The `countersign` CLI as a person runs it against the tests' shared dev server: a child process of
// bin/countersign.js with the server's address, no profile of the machine's, and plain output.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawnProcess } from './processes';
import { binaryPath, projectRoot } from './toolchain';
import { testAddress } from './testServer';

export const CLI_PATH = join(projectRoot, 'bin/countersign.js');

/** A CLI process's environment: the shared test server, no profile, no colour; then `extra` (task queue, storage …). */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: testAddress(),
    TEMPORAL_CONFIG_FILE: '/nonexistent/countersign.toml',
    NO_COLOR: '1',
    ...extra,
  };
}

/** `countersign <args>`: its output; a non-zero exit rejects with an error that carries `code`, `stdout` and `stderr`. */
export function countersign(
  args: string[],
  env: NodeJS.ProcessEnv = cliEnv(),
  maxBuffer = 16 * 1024 * 1024,
): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [CLI_PATH, ...args], { env, cwd: projectRoot, maxBuffer });
}

/** `countersign <args>` whatever its exit: the code with both outputs, for tests that assert refusals too. */
export async function countersignExit(
  args: string[],
  env: NodeJS.ProcessEnv = cliEnv(),
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    return { code: 0, ...(await countersign(args, env)) };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `countersign <args>` still running: await it saying something on its way (stdout or stderr), then its exit. */
export function countersignRunning(
  args: string[],
  env: NodeJS.ProcessEnv = cliEnv(),
): { said(pattern: RegExp): Promise<void>; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const p = spawnProcess(process.execPath, [CLI_PATH, ...args], { cwd: projectRoot, env });
  let [stdout, stderr] = ['', ''];
  p.child.stdout!.on('data', (d) => (stdout += d));
  p.child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    p.child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { said: (pattern) => p.waitFor(pattern, 60_000), done };
}

/** The bundled `temporal` CLI against the shared test server (`--address`), with no profile of the machine's: its output. */
export async function temporalCli(args: string[], env: NodeJS.ProcessEnv = cliEnv()): Promise<string> {
  const { stdout } = await promisify(execFile)(binaryPath('temporal'), [...args, '--address', testAddress()], {
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}
