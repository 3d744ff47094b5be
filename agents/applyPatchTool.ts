// File edits for the model (after the OpenAI Agents SDK's ApplyPatchTool): create, update (unified diff) and delete
// files under `root`. A person sees the diffs before anything changes (by default); a call applies all its
// operations or none. Paths that leave the root are refused by the schema, so such a call never reaches a person.
//
// Arguments: { operations: [{ type: 'create_file' | 'update_file' | 'delete_file', path, diff? }] }
//   create_file: `diff` is the new file as a diff against an empty file: every line prefixed with '+'. Hunk
//                headers (`@@ -0,0 +1,N @@`, optionally after `---`/`+++` lines) may be given or left out; plain
//                content (lines without '+') is refused. The file must not exist yet.
//   update_file: `diff` is a unified diff of that one file with line-numbered hunks (`@@ -l,s +l,s @@`); context
//                and removed lines must match the file exactly (a hunk may sit at other line numbers).
//   delete_file: no diff.
// With an `editor` of its own (the OpenAI Agents SDK's Editor interface) the editor applies each operation instead, in
// order, with the diff as the model wrote it; paths and diffs are then the editor's to check, and an operation that
// fails stops the rest (those before it stay applied: all-or-none is the built-in writer's promise only).
import { lstatSync, realpathSync } from 'node:fs';
import { lstat, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import { z } from 'zod';
import type { ApprovalPolicy } from '../contract/approvalPolicy';
import { defineTool, type Tool, type ToolConfig } from './defineTool';
import { type Editor, applyWithEditor } from './patchEditor';

export type { Editor, EditorResult } from './patchEditor';

const within = (dir: string, path: string) => {
  const rel = relative(dir, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};

const exists = (path: string) => {
  try {
    lstatSync(path); // a dangling symbolic link exists too
    return true;
  } catch {
    return false;
  }
};

/** Why `path` may not be written under `root`, or undefined. Synchronous: it runs inside zod's safeParse. */
export function pathProblem(root: string, path: string): string | undefined {
  if (path.includes('\0')) return 'contains a NUL character';
  if (isAbsolute(path) || /^[a-zA-Z]:[\\/]/.test(path)) return 'is absolute; give a path relative to the root';
  const target = resolve(root, path);
  if (!within(root, target)) return 'is outside the root';
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return 'cannot be checked: the root directory does not exist';
  }
  // Symbolic links: the deepest part of the path that exists must resolve inside the root (what does not exist yet
  // cannot be a link).
  let probe = target;
  while (!exists(probe)) probe = dirname(probe);
  let real: string;
  try {
    real = realpathSync(probe);
  } catch {
    return 'goes through a broken symbolic link';
  }
  return real === realRoot || within(realRoot, real)
    ? undefined
    : 'goes through a symbolic link that leads outside the root';
}

type Parsed = { patch: StructuredPatch } | { problem: string };

/** create_file accepts bare '+' lines (what OpenAI's apply_patch models send); a hunk header is added for jsdiff. */
function creationPatch(diff: string): Parsed {
  const lines = diff.replace(/\n$/, '').split('\n');
  if (diff !== '' && !lines.some((l) => l.startsWith('@@'))) {
    const bad = lines.findIndex((l) => !l.startsWith('+') && !l.startsWith('\\'));
    if (bad >= 0)
      return { problem: `line ${bad + 1} does not start with '+': give the new file as a diff against an empty file` };
    diff = `@@ -0,0 +1,${lines.filter((l) => l.startsWith('+')).length} @@\n${diff}`;
  }
  const parsed = parseOne(diff, diff === ''); // '' is an empty file
  if ('patch' in parsed && parsed.patch.hunks.some((h) => h.oldLines !== 0))
    return { problem: 'a create_file diff must be against an empty file (@@ -0,0 +1,N @@)' };
  return parsed;
}

function parseOne(diff: string, emptyOk = false): Parsed {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(diff);
  } catch (err) {
    return { problem: `the diff cannot be parsed: ${(err as Error).message}` };
  }
  if (patches.length !== 1) return { problem: `the diff must cover one file, it covers ${patches.length}` };
  const patch = patches[0]!;
  if (!emptyOk && patch.hunks.length === 0)
    return { problem: 'the diff has no hunks: give a unified diff with @@ -l,s +l,s @@ lines' };
  if (patch.hunks.some((h) => !Number.isInteger(h.oldStart) || !Number.isInteger(h.newStart)))
    return { problem: 'every hunk header must give line numbers: @@ -l,s +l,s @@' };
  return { patch };
}

const parseDiff = (type: string, diff: string | undefined): Parsed =>
  type === 'create_file' ? creationPatch(diff ?? '') : parseOne(diff ?? '');

/** Without a root (an editor of its own) paths and diffs are not checked here: the editor decides. */
function operationSchema(root: string | undefined) {
  return z
    .object({
      type: z.enum(['create_file', 'update_file', 'delete_file']),
      path: z
        .string()
        .min(1)
        .describe('Relative to the project root')
        .superRefine((path, ctx) => {
          const problem = root === undefined ? undefined : pathProblem(root, path);
          if (problem) ctx.addIssue({ code: 'custom', message: `path ${JSON.stringify(path)} ${problem}` });
        }),
      diff: z
        .string()
        .optional()
        .describe(
          "create_file: the new content, every line prefixed with '+'; update_file: a unified diff; delete_file: none",
        ),
    })
    .superRefine((op, ctx) => {
      if (op.type === 'delete_file') {
        if (op.diff) ctx.addIssue({ code: 'custom', path: ['diff'], message: 'delete_file takes no diff' });
        return;
      }
      if (op.diff === undefined)
        return void ctx.addIssue({ code: 'custom', path: ['diff'], message: `${op.type} needs a diff` });
      if (root === undefined) return;
      const parsed = parseDiff(op.type, op.diff);
      if ('problem' in parsed) ctx.addIssue({ code: 'custom', path: ['diff'], message: parsed.problem });
    });
}

function parametersFor(root: string | undefined) {
  return z.object({
    operations: z.array(operationSchema(root)).min(1).describe('Applied together: all of them or none'),
  });
}
export type ApplyPatchParameters = z.infer<ReturnType<typeof parametersFor>>;
type Parameters = ReturnType<typeof parametersFor>;

export interface ApplyPatchToolOptions extends ApprovalPolicy {
  /** Tool name the model sees. Default 'apply_patch'. */
  name?: string;
  /** The directory every path is relative to; nothing outside it is written (resolved against the worker's cwd). Not with `editor`. */
  root?: string;
  /** Applies each operation instead of writing under `root` (in the tool activity, in order; the first failure stops the rest). */
  editor?: Editor;
  /** Default true: a person approves each call, seeing the diffs. */
  needsApproval?: ToolConfig<Parameters>['needsApproval'];
  /** Decides a gated call in code first; undefined asks a person. */
  onApproval?: ToolConfig<Parameters>['onApproval'];
  /** Default false: a patch is never applied twice on its own; a call whose attempt died is `uncertain`. */
  idempotent?: boolean;
  description?: string;
}

/** The file's text, or null when it does not exist. */
async function current(path: string): Promise<string | null> {
  const info = await lstat(path).catch((err: NodeJS.ErrnoException) =>
    err.code === 'ENOENT' ? null : Promise.reject(err),
  );
  if (!info) return null;
  if (info.isDirectory()) throw new Error('it is a directory');
  return readFile(path, 'utf8');
}

/** Which hunk fails, for the model: jsdiff only says that the patch as a whole does not apply. */
function failingHunk(source: string, patch: StructuredPatch): string {
  const i = patch.hunks.findIndex(
    (_, n) => applyPatch(source, { ...patch, hunks: patch.hunks.slice(0, n + 1) }) === false,
  );
  const h = patch.hunks[Math.max(i, 0)]!;
  return `hunk ${Math.max(i, 0) + 1} (@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@) does not match the file: its context and removed lines are not there`;
}

const counts = (patch: StructuredPatch) => {
  const lines = patch.hunks.flatMap((h) => h.lines);
  return `(+${lines.filter((l) => l.startsWith('+')).length} -${lines.filter((l) => l.startsWith('-')).length})`;
};

/** Applies every operation in memory first; the files change only when all of them apply. */
async function applyAll(root: string, operations: ApplyPatchParameters['operations']): Promise<string> {
  const staged = new Map<string, string | null>(); // absolute path → new text; null: deleted
  const original = new Map<string, string | null>();
  const done: string[] = [];
  for (const op of operations) {
    const fail = (why: string): never => {
      throw new Error(`${op.type} ${op.path}: ${why}. No file was changed.`);
    };
    // Checked again here: a link may have appeared since the call was approved.
    const problem = pathProblem(root, op.path);
    if (problem) fail(`the path ${problem}`);
    const abs = resolve(root, op.path);
    if (!original.has(abs)) original.set(abs, await current(abs).catch((err: Error) => fail(err.message)));
    const text = (staged.has(abs) ? staged.get(abs) : original.get(abs)) ?? null;
    if (op.type === 'delete_file') {
      if (text === null) fail('the file does not exist');
      staged.set(abs, null);
      done.push(`deleted ${op.path}`);
      continue;
    }
    const parsed = parseDiff(op.type, op.diff);
    if ('problem' in parsed) return fail(parsed.problem);
    if (op.type === 'create_file' && text !== null) fail('the file already exists (use update_file to change it)');
    if (op.type === 'update_file' && text === null) fail('the file does not exist (use create_file)');
    const next = applyPatch(text ?? '', parsed.patch);
    if (next === false) fail(failingHunk(text ?? '', parsed.patch));
    staged.set(abs, next as string);
    done.push(op.type === 'create_file' ? `created ${op.path}` : `updated ${op.path} ${counts(parsed.patch)}`);
  }
  const written: string[] = [];
  try {
    for (const [abs, text] of staged) {
      written.push(abs);
      if (text === null) {
        if (original.get(abs) !== null) await unlink(abs);
      } else {
        await mkdir(dirname(abs), { recursive: true });
        await writeFile(abs, text);
      }
    }
  } catch (err) {
    // A disk error halfway: put back what was already changed, so the call still changes nothing.
    for (const abs of written) {
      const before = original.get(abs) ?? null;
      await (before === null ? unlink(abs) : writeFile(abs, before)).catch(() => undefined);
    }
    throw new Error(`writing the files failed (${(err as Error).message}); the changes were undone`);
  }
  return done.join('\n');
}

export function applyPatchTool(options: ApplyPatchToolOptions): Tool<Parameters> {
  const {
    name = 'apply_patch',
    root,
    editor,
    needsApproval = true,
    onApproval,
    idempotent = false,
    description,
    ...policy
  } = options;
  if (editor && root)
    throw new Error(`tool ${name}: give a root to the built-in writer or an editor of your own, not both`);
  if (editor && ['createFile', 'updateFile', 'deleteFile'].some((m) => typeof editor[m as keyof Editor] !== 'function'))
    throw new Error(
      `tool ${name}: editor must have createFile, updateFile and deleteFile methods (the Agents SDK's Editor)`,
    );
  if (!root && !editor) throw new Error(`tool ${name}: root is required (or give an editor of your own)`);
  const dir = root ? resolve(root) : undefined;
  return defineTool({
    name,
    description:
      description ??
      (editor
        ? 'Create, update or delete files in the project. create_file: diff is the new file with every line prefixed by ' +
          "'+'. update_file: diff is a patch of the file, hunks starting with @@ and lines of ' ' context, '-' removed and " +
          "'+' added. delete_file: no diff. Operations apply in order; the first that fails stops the rest."
        : 'Create, update or delete files in the project. Paths are relative to the project root. create_file: diff is the new ' +
          "file with every line prefixed by '+'. update_file: diff is a unified diff with @@ -l,s +l,s @@ hunks whose context " +
          'lines match the file exactly. delete_file: no diff. All operations of a call apply together, or none does.'),
    parameters: parametersFor(dir),
    needsApproval,
    ...(onApproval ? { onApproval } : {}),
    idempotent,
    ...policy,
    execute: ({ operations }, ctx) => (editor ? applyWithEditor(editor, operations, ctx) : applyAll(dir!, operations)),
  });
}
