// Child processes for end-to-end tests: free loopback ports, and waiting for a line of output.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { projectRoot } from './toolchain';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Spawned {
  child: ChildProcess;
  /** Signals the whole process group (the program and what it started in that group), as a terminal would. */
  kill(signal: NodeJS.Signals): void;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * Runs a TypeScript entry point of the project as `npm start` does (`node --import tsx`: one process, no tsx parent
 * relaying signals — under load that relay SIGKILLs a child that is slow to acknowledge Ctrl-C), in a process group of its own.
 */
export function spawnTs(entry: string, args: string[], env: NodeJS.ProcessEnv): Spawned {
  return spawnProcess(process.execPath, ['--import', 'tsx', join(projectRoot, entry), ...args], {
    cwd: projectRoot,
    env,
  });
}

/** Runs a program in a process group of its own, collecting its output. */
export function spawnProcess(cmd: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv }): Spawned {
  const child = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  // 'exit' can come before the last of the output is read; wait for both pipes to end too, but not for ever, since
  // a grandchild that inherited them may outlive the program.
  const drained = (stream: Readable) =>
    new Promise<void>((resolve) => (stream.closed ? resolve() : stream.once('close', resolve)));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      const pipes = Promise.all([drained(child.stdout!), drained(child.stderr!)]);
      const cap = new Promise<void>((done) => setTimeout(done, 2_000).unref());
      void Promise.race([pipes, cap]).then(() => resolve(code));
    }),
  );
  return {
    child,
    kill: (signal) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        /* already gone */
      }
    },
    output: () => out,
    exited,
    waitFor: (pattern, timeoutMs = 90_000) =>
      new Promise((resolve, reject) => {
        const t0 = Date.now();
        const tick = setInterval(() => {
          if (pattern.test(out)) return (clearInterval(tick), resolve());
          if (child.exitCode !== null || Date.now() - t0 > timeoutMs) {
            clearInterval(tick);
            reject(new Error(`never saw ${pattern} (exit ${child.exitCode}); output:\n${out}`));
          }
        }, 100);
      }),
  };
}
