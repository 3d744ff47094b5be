// An editor of the team's own for applyPatchTool (the OpenAI Agents SDK's Editor interface): it applies each
// operation the model sent, in order, in the tool activity, with the diff as the model wrote it. The first operation
// it reports failed stops the rest; those before it stay applied (all-or-none is the built-in writer's promise only).
import type { ToolContext } from './defineTool';

/** What an editor says of one operation (the Agents SDK's ApplyPatchResult); nothing means it was applied. */
export type EditorResult = { status?: 'completed' | 'failed'; output?: string } | void;

/** Applies operations instead of the built-in writer: the OpenAI Agents SDK's Editor interface. */
export interface Editor {
  createFile(operation: { type: 'create_file'; path: string; diff: string }, ctx: ToolContext): Promise<EditorResult>;
  updateFile(operation: { type: 'update_file'; path: string; diff: string }, ctx: ToolContext): Promise<EditorResult>;
  deleteFile(operation: { type: 'delete_file'; path: string }, ctx: ToolContext): Promise<EditorResult>;
}

type Operation = { type: 'create_file' | 'update_file' | 'delete_file'; path: string; diff?: string };

const DONE = { create_file: 'created', update_file: 'updated', delete_file: 'deleted' } as const;

/** Each operation through the editor, in order; the model reads what each said, and where it stopped. */
export async function applyWithEditor(editor: Editor, operations: Operation[], ctx: ToolContext): Promise<string> {
  const lines: string[] = [];
  for (const [i, op] of operations.entries()) {
    const { type, path } = op;
    const diff = op.diff ?? '';
    const result =
      type === 'create_file'
        ? await editor.createFile({ type, path, diff }, ctx)
        : type === 'update_file'
          ? await editor.updateFile({ type, path, diff }, ctx)
          : await editor.deleteFile({ type, path }, ctx);
    const said = result?.output ? `: ${result.output}` : '';
    if (result?.status === 'failed') {
      const left = operations.length - i - 1;
      lines.push(`${type} ${path} failed${said}`);
      if (left) lines.push(`(stopped: ${left} later operation${left === 1 ? '' : 's'} not applied)`);
      break;
    }
    lines.push(`${DONE[type]} ${path}${said}`);
  }
  return lines.join('\n');
}
