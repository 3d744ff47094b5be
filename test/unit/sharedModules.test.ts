// The worker evaluates the workflow graph once per workflow thread and shares it by every run (preloadModules). Two
// things keep that safe: the graph holds no module-level state a run could leave for the next one, and an exported
// schema still works once the SDK has deep-frozen the module's exports.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { z } from 'zod';
import { shareAcrossRuns } from '../../contract/sharedModules';
import { preloadModules } from '../../worker/workflowBundle';
import { projectRoot } from '../support/toolchain';

/** What the workflow bundle holds of this project: the layers workflow code may import (docs/architecture.md). */
const WORKFLOW_GRAPH = ['workflows', 'core', 'contract'];
/** Module-level collections that are constants, filled once when the module is evaluated, or shared on purpose. */
const SHARED_ON_PURPOSE = new Set(['core/signing/compactJws.ts:VALUE', 'contract/sharedModules.ts:built']);

const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/** Top-level `let`/`var`, and top-level collections, in `source`: state that would outlive the run that wrote it. */
function moduleState(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    const mutable = !(st.declarationList.flags & ts.NodeFlags.Const);
    for (const d of st.declarationList.declarations) {
      const name = d.name.getText(sf);
      const init = d.initializer;
      const collection =
        !!init && ts.isNewExpression(init) && /^(Map|Set|WeakMap|WeakSet|Array)$/.test(init.expression.getText(sf));
      if ((mutable || collection) && !SHARED_ON_PURPOSE.has(`${file}:${name}`)) found.push(`${file}:${name}`);
    }
  }
  return found;
}

describe('the workflow graph is shared by every run on a thread', () => {
  it('the worker preloads the whole workflow graph', () => {
    expect(preloadModules).toContain(require.resolve('../../workflows'));
  });

  it('holds no module-level state: no top-level let or var, no top-level collection except the listed constants', () => {
    const files = WORKFLOW_GRAPH.flatMap((d) => tsFiles(join(projectRoot, d)));
    expect(files.length).toBeGreaterThan(30);
    const state = files.flatMap((f) => moduleState(relative(projectRoot, f), readFileSync(f, 'utf8')));
    expect(state).toEqual([]);
  });

  it('the scan finds module-level state (negative control)', () => {
    expect(
      moduleState(
        'workflows/x.ts',
        'let count = 0;\nconst seen = new Map();\nconst limit = 3;\nexport const ok = () => limit;',
      ),
    ).toEqual(['workflows/x.ts:count', 'workflows/x.ts:seen']);
  });

  /** What the SDK does to a preloaded module's exports (reusable-vm's deepFreeze): every reachable own object frozen. */
  const deepFreeze = (o: unknown, seen = new Set<unknown>()): void => {
    if (!o || (typeof o !== 'object' && typeof o !== 'function') || seen.has(o)) return;
    seen.add(o);
    if (typeof o === 'object')
      for (const k of Reflect.ownKeys(o)) deepFreeze((o as Record<PropertyKey, unknown>)[k], seen);
    Object.freeze(o);
  };

  it('a shared schema parses and composes after its module is deep-frozen', () => {
    const exportsOf = {
      callId: shareAcrossRuns('test.callId', () => z.string().min(1)),
      payload: undefined as unknown,
    };
    exportsOf.payload = shareAcrossRuns('test.payload', () => z.strictObject({ callId: exportsOf.callId }));
    deepFreeze(exportsOf);
    const payload = exportsOf.payload as z.ZodType<{ callId: string }>;
    expect(payload.safeParse({ callId: 'c1' })).toEqual({ success: true, data: { callId: 'c1' } });
    expect(payload.safeParse({ callId: '' }).success).toBe(false);
    expect(payload.optional().safeParse(undefined).success).toBe(true);
    expect(payload instanceof z.ZodObject).toBe(true);
  });

  it('a plain schema fails once deep-frozen (negative control: why shared schemas are stand-ins)', () => {
    const plain = { schema: z.strictObject({ callId: z.string() }) };
    deepFreeze(plain);
    expect(() => plain.schema.safeParse({ callId: 'c1' })).toThrow(/not extensible/);
  });
});
