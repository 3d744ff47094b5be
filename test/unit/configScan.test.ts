// Configuration in one module: no product file but temporal.config.ts (and its helpers in config/) reads the
// environment, and every COUNTERSIGN_* / OPENAI_* / TEMPORAL_* name in product code is declared in its schemas.
import { join } from 'node:path';
import { devEnvSchema, productEnvSchema } from '../../temporal.config';
import { scanProduct, scanSource } from '../support/configScan';

const declared = new Set([...Object.keys(productEnvSchema.shape), ...Object.keys(devEnvSchema.shape)]);
const problems = (file: string, source: string) => scanSource(file, source, declared).map((f) => f.problem);

test('the product reads its settings from temporal.config.ts alone, and names only declared variables', () => {
  const { files, findings } = scanProduct(join(__dirname, '../..'), declared);
  expect(files.length).toBeGreaterThan(100); // it looked at the product, not at nothing
  expect(files).toEqual(
    expect.arrayContaining([
      'temporal.config.ts',
      'worker/startWorker.ts',
      'cli/cli.ts',
      'devtools/demoMcpServer.ts',
      'activities/callPlanning.ts',
    ]),
  );
  expect(findings.map((f) => `${f.file}:${f.line}: ${f.problem}`)).toEqual([]);
});

test('the scan finds what it must (negative controls)', () => {
  expect(problems('worker/x.ts', 'const port = Number(process.env.X ?? 0);')).toEqual([
    'reads process.env: process.env.X',
  ]);
  expect(problems('worker/x.ts', "const a = process.env['COUNTERSIGN_MODEL'];")).toHaveLength(1);
  expect(problems('worker/x.ts', 'spawn(cmd, { env: { ...process.env, A: 1 } });')).toHaveLength(1);
  expect(problems('worker/x.ts', 'loadConfig(process.env);')).toHaveLength(1);
  expect(problems('worker/x.ts', 'const e = globalThis.process.env;')).toHaveLength(1);
  expect(problems('worker/x.ts', "const { env } = process;\nimport { env as e } from 'node:process';")).toEqual([
    'takes env out of process',
    "imports env from 'process'",
  ]);
  expect(
    problems('client/x.ts', 'const id = (env: Record<string, string>) => env.COUNTERSIGN_GRANTS_WORKFLOW_ID;'),
  ).toEqual(['reads COUNTERSIGN_GRANTS_WORKFLOW_ID off an environment object: take it from the loaded configuration']);
  expect(problems('cli/x.mjs', "throw new Error('set COUNTERSIGN_NOT_DECLARED');")).toEqual([
    'COUNTERSIGN_NOT_DECLARED (in a string) is not declared in temporal.config.ts',
  ]);
  expect(problems('cli/x.ts', 'const m = `use ${a} or OPENAI_NOPE`;')).toEqual([
    'OPENAI_NOPE (in a string) is not declared in temporal.config.ts',
  ]);
  expect(problems('cli/x.ts', '// set TEMPORAL_NOPE\nconst a = 1; /* and COUNTERSIGN_NOPE_TOO */')).toEqual([
    'TEMPORAL_NOPE (in a comment) is not declared in temporal.config.ts',
    'COUNTERSIGN_NOPE_TOO (in a comment) is not declared in temporal.config.ts',
  ]);
  expect(problems('config/x.ts', 'const f = (env: NodeJS.ProcessEnv = process.env) => env.TEMPORAL_PROFILE;')).toEqual(
    [],
  ); // the configuration module may
});

test('declared names, their prefixes and other `env` properties pass', () => {
  const ok = [
    "const m = 'set COUNTERSIGN_MODEL_API=responses, or COUNTERSIGN_PAYLOAD_STORAGE=off';",
    '// COUNTERSIGN_PAYLOAD_* and TEMPORAL_TLS* (prefixes of declared names); TEMPORAL_GRPC_META_X_FOO (a declared family)',
    'const s = { env: server.env, COUNTERSIGN_MCP_LEDGER: ledger }; // building an environment for a child is not reading one',
    'const v = 10 / 2; const r = /COUNTERSIGN_[A-Z]+/;',
  ];
  for (const source of ok) expect(problems('devtools/x.ts', source)).toEqual([]);
});
