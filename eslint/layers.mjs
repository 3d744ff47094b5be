// The layer table: which folder may import which. Lint enforces it (the `countersign/layers` rule below) for every
// product file, with no per-file exceptions; docs/architecture.md shows the same table, and
// test/unit/layers.test.ts checks that the two agree and that a fixture breaking each kind of rule fails lint.
import { builtinModules } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';

const NODE = ['node:*', ...builtinModules];
const TEMPORAL_RUNTIME = [
  '@temporalio/worker',
  '@temporalio/worker/*',
  '@temporalio/activity',
  '@temporalio/client',
  '@temporalio/client/*',
];
const NETWORK = ['openai', 'openai/*', '@modelcontextprotocol/*', '@aws-sdk/*'];
const WEB = ['fastify', '@fastify/*'];
// The agent SDKs Countersign adapts are optional peer dependencies: only their adapters load them.
const AGENT_SDKS = ['@openai/agents', '@openai/agents-*', 'ai', '@ai-sdk/*'];

/** Lowest first. `imports`: the layers a layer's files may import (its own always); `typeImports`: `import type` only. */
export const LAYERS = [
  {
    name: 'contract',
    paths: ['contract/'],
    imports: [],
    forbid: [...NODE, ...TEMPORAL_RUNTIME, ...NETWORK, ...WEB, ...AGENT_SDKS],
    what: 'the wire contract and the view types everything shares: workflow type, signals, update, queries, search attributes, payload schemas',
  },
  {
    name: 'core',
    paths: ['core/'],
    imports: ['contract'],
    forbid: [...NODE, '@temporalio/workflow', ...TEMPORAL_RUNTIME, ...NETWORK, ...WEB, ...AGENT_SDKS],
    what: 'the pure core: approval book, run state, decision rules, signing, grants; no Temporal, no Node, unit-tested alone',
  },
  {
    name: 'runtime',
    paths: ['temporal.config.ts', 'config/', 'codec/', 'storage/', 'links/'],
    imports: ['contract', 'core'],
    forbid: [...WEB, ...AGENT_SDKS],
    what: 'what the worker and the servers both use: configuration, the payload codec and store, link tokens and message bodies',
  },
  {
    name: 'workflows',
    paths: ['workflows/'],
    imports: ['contract', 'core'],
    typeImports: ['activities'],
    forbid: [...NODE, ...TEMPORAL_RUNTIME, ...NETWORK, ...WEB, ...AGENT_SDKS],
    what: 'workflow code: deterministic, in the sandbox; activities only through their types',
  },
  {
    name: 'activities',
    paths: ['agents/', 'activities/'],
    imports: ['contract', 'core', 'runtime'],
    forbid: [...WEB, ...AGENT_SDKS],
    what: 'agents and tools, and the activities that call the model, plan calls and run tools; never web code',
  },
  {
    name: 'adapters',
    paths: ['adapters/'],
    imports: ['contract', 'core', 'runtime', 'activities'],
    forbid: [...WEB, '@temporalio/workflow'],
    what: "other SDKs' agents and tools as Countersign's (`countersign/openai-agents`, `countersign/ai-sdk`): the only code that loads those SDKs, never in the workflow bundle",
  },
  {
    name: 'worker',
    paths: ['worker/'],
    imports: ['contract', 'core', 'runtime', 'activities'],
    forbid: [...WEB, ...AGENT_SDKS],
    what: 'the worker process: configuration checks, the workflow bundle, activities wired to their dependencies',
  },
  {
    name: 'client',
    paths: ['client/'],
    imports: ['contract', 'core', 'runtime'],
    forbid: [...WEB, ...AGENT_SDKS],
    what: 'the client library: start runs, read them, decide',
  },
  {
    name: 'servers',
    paths: ['servers/'],
    imports: ['contract', 'core', 'runtime', 'client'],
    forbid: AGENT_SDKS,
    what: 'the approvals inbox and the codec server',
  },
  {
    name: 'gateway',
    paths: ['gateway/'],
    imports: ['contract', 'core', 'runtime', 'activities', 'worker', 'client', 'servers'],
    forbid: [...WEB, ...AGENT_SDKS],
    what: 'the MCP gateway (`countersign gateway`): an MCP server in front of MCP servers, with the worker its gated calls need',
  },
  {
    name: 'cli',
    paths: ['cli/', 'entries/'],
    imports: ['contract', 'core', 'runtime', 'client', 'servers', 'gateway'],
    forbid: AGENT_SDKS,
    what: 'the `countersign` command line and the package entry points that assemble the layers',
  },
  {
    name: 'devtools',
    paths: ['devtools/'],
    imports: [
      'contract',
      'core',
      'runtime',
      'workflows',
      'activities',
      'adapters',
      'worker',
      'client',
      'servers',
      'gateway',
      'cli',
    ],
    forbid: [],
    what: 'development tools (scripted model, dev-server launcher, npm start, demo MCP server); nothing in the product imports them',
  },
];

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');

export function layerOf(file) {
  const rel = relative(ROOT, file).split(sep).join('/');
  return LAYERS.find((l) =>
    l.paths.some((p) => (p.endsWith('/') ? rel.startsWith(p) || rel === p.slice(0, -1) : rel === p)),
  );
}

const glob = (pattern, name) => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern);
const typeOnly = (node) =>
  node.importKind === 'type' ||
  node.exportKind === 'type' ||
  (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));

export const layersRule = {
  meta: { type: 'problem', schema: [], docs: { description: 'imports follow the layer table in eslint/layers.mjs' } },
  create(context) {
    const file = context.filename;
    const own = layerOf(file);
    if (!own) return {}; // tests, scripts, benchmarks, examples
    function check(node, spec, isType) {
      if (typeof spec !== 'string') return;
      if (!spec.startsWith('.')) {
        const banned = own.forbid.find(
          (p) =>
            glob(p, spec) ||
            glob(
              p,
              spec
                .split('/')
                .slice(0, spec.startsWith('@') ? 2 : 1)
                .join('/'),
            ),
        );
        if (banned)
          context.report({
            node,
            message: `${own.name} code may not import '${spec}' (layer table: eslint/layers.mjs)`,
          });
        return;
      }
      const target = layerOf(resolve(dirname(file), spec));
      if (!target || target === own) return;
      if (own.imports.includes(target.name)) return;
      if (isType && own.typeImports?.includes(target.name)) return;
      const how = own.typeImports?.includes(target.name) ? ' except with `import type`' : '';
      context.report({
        node,
        message: `${own.name} code may not import ${target.name} code${how}: '${spec}' (layer table: eslint/layers.mjs)`,
      });
    }
    return {
      ImportDeclaration: (n) => check(n, n.source.value, typeOnly(n)),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value, typeOnly(n)),
      ExportAllDeclaration: (n) => check(n, n.source.value, n.exportKind === 'type'),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value, false),
      TSImportType: (n) => check(n, n.argument?.literal?.value ?? n.argument?.value, true),
      CallExpression: (n) => {
        const callee = n.callee;
        // require.resolve is not an import: a worker hands the bundler its workflows' path, as every Temporal worker does.
        if (callee.type === 'Identifier' && callee.name === 'require' && n.arguments[0]?.type === 'Literal')
          check(n, n.arguments[0].value, false);
      },
    };
  },
};
