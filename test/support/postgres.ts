// A real PostgreSQL for the ledger's tests and bench: Debian's server binaries (/usr/lib/postgresql/<v>/bin), a fresh
// cluster made by initdb in a temporary folder, started by pg_ctl on a free loopback port. initdb refuses to run as
// root, so as root the cluster belongs to the `postgres` OS user (runuser). Nothing is installed or started
// system-wide; the folder is removed when the process exits.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication on loopback). */
  url: string;
  port: number;
  /** Stops the server (fast shutdown); its data stays for restart(). */
  stop(): Promise<void>;
  /** Starts it again (stopping it first when it runs), on the same port, with the same data. */
  restart(): Promise<void>;
  /** SIGKILLs the server's postmaster: a crash, recovered on restart(). */
  kill(): Promise<void>;
  /** Stops it and removes its folder. */
  remove(): Promise<void>;
}

/** The newest installed server's bin folder, or a one-line error. */
export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length)
    throw new Error(`PostgreSQL is not installed (no ${root}/*/bin/initdb): apt-get install postgresql`);
  return path.join(root, versions[0]!, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const clusters = new Set<string>();
process.once('exit', () => {
  for (const dir of clusters) {
    const pidFile = path.join(dir, 'data', 'postmaster.pid');
    if (existsSync(pidFile)) {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'countersign-pg-'));
  clusters.add(dir);
  const data = path.join(dir, 'data');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool: string, args: string[]) => {
    const cmd = asRoot ? 'runuser' : path.join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', path.join(bin, tool), ...args] : args;
    const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: dir, timeout: 60_000 });
    if (r.status !== 0)
      throw new Error(
        `${tool} ${args[0] ?? ''} failed: ${(r.stderr || r.stdout || String(r.error)).trim().split('\n').pop()}`,
      );
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const start = () =>
    run('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  const pidFile = path.join(data, 'postmaster.pid');
  const postmaster = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : undefined);
  const running = () => {
    const pid = postmaster();
    return pid !== undefined && alive(pid);
  };
  const stop = () => {
    if (running()) run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  };
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => stop(),
    restart: async () => {
      stop();
      start();
    },
    kill: async () => {
      const pid = postmaster();
      if (pid === undefined || !alive(pid)) return;
      const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean);
      process.kill(pid, 'SIGKILL');
      // Its children notice the postmaster is gone and exit; restart() must not find them holding shared memory.
      for (let i = 0; i < 100 && [pid, ...children.map(Number)].some(alive); i++)
        await new Promise((r) => setTimeout(r, 100));
    },
    remove: async () => {
      stop();
      clusters.delete(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
