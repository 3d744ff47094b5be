// A reader's workspace for a doc page's walkthrough (getting-started.md, bring-your-agents.md): a folder inside the
// clone (test/artifacts is git-ignored), as a user's file at its root, so 'countersign' and 'zod' resolve the same
// way; the page's my-agents.ts in it; free ports for `npm start`; and the environment of a fresh shell (none of the
// test run's TEMPORAL_ address, OPENAI_ or COUNTERSIGN_ settings).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './processes';
import { projectRoot } from './toolchain';

export interface DocWorkspace {
  dir: string;
  /** What the page's `npx countersign …` commands see: the workspace's dev server. */
  cliEnv: NodeJS.ProcessEnv;
  /** What its `COUNTERSIGN_AGENTS_MODULE=./my-agents.ts npm start` sees (devtools/start.ts). */
  startEnv: NodeJS.ProcessEnv;
}

export async function docWorkspace(
  prefix: string,
  myAgents: string[],
  cleanups: Array<() => unknown>,
): Promise<DocWorkspace> {
  mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
  const dir = mkdtempSync(join(projectRoot, `test/artifacts/${prefix}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'my-agents.ts'), `${myAgents.join('\n')}\n`);
  const [port, uiPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_CONFIG_FILE: join(dir, 'none.toml') };
  for (const k of Object.keys(env)) if (/^(TEMPORAL_(ADDRESS|NAMESPACE)|OPENAI_|COUNTERSIGN_)/.test(k)) delete env[k];
  return {
    dir,
    cliEnv: { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${port}` },
    startEnv: {
      ...env,
      COUNTERSIGN_AGENTS_MODULE: join(dir, 'my-agents.ts'),
      COUNTERSIGN_DEV_ADDRESS: `127.0.0.1:${port}`,
      COUNTERSIGN_UI_PORT: String(uiPort),
      COUNTERSIGN_DEV_DB: join(dir, 'dev.db'),
      COUNTERSIGN_DEMO_OUTBOX: join(dir, 'outbox.jsonl'),
    },
  };
}
