// `countersign hook claude-code` and `countersign hook cursor`: command hooks for coding agents that run a program
// per tool call. Each reads its agent's hook input on stdin, asks the gateway's POST /hooks/claude-code (Cursor's
// input in Claude Code's shape: one way in), and prints the answer in its agent's documented output shape. Claude
// Code's PostToolUse input is forwarded the same way, to record what the tool did. A gateway that cannot be reached
// or refuses is a deny with its reason; any failure of the hook's own (input that is not a hook's, a bad setting, an
// unexpected error) is one line on stderr and exit 2, which both agents take as a block: any other exit code fails
// open.
import type { Command } from 'commander';
import { setting } from '../temporal.config';
import { UsageError, usageExits } from './usageErrors';

interface HookOptions {
  gateway?: string;
}
type Decision = 'allow' | 'deny' | 'ask';
interface Answer {
  decision: Decision;
  reason: string;
}

export function addHookCommands(program: Command): void {
  // usageExits: a mistyped flag is one line and exit 2 (a block), not commander's exit 1 (which lets the call run).
  const hook = usageExits(program.command('hook')).description(
    "a coding agent's command hook: asks `countersign gateway` whether a tool call may run",
  );
  const gatewayFlag = [
    '--gateway <url>',
    'the gateway (default COUNTERSIGN_GATEWAY_URL, else http://127.0.0.1:8235)',
  ] as const;
  hook
    .command('claude-code')
    .description(
      "Claude Code's PreToolUse command hook: its input on stdin, its hookSpecificOutput on stdout; as its PostToolUse (or PostToolUseFailure) hook, records what the tool did against the call",
    )
    .option(...gatewayFlag)
    .action(
      blocking(async (o: HookOptions) => {
        const input = jsonOf(await stdin());
        if (input.hook_event_name === 'PostToolUse' || input.hook_event_name === 'PostToolUseFailure')
          return report(gatewayOf(o), input);
        const answer = await ask(gatewayOf(o), input);
        const out = {
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: answer.decision,
            permissionDecisionReason: answer.reason,
          },
        };
        process.stdout.write(`${JSON.stringify(out)}\n`);
      }),
    );
  hook
    .command('cursor')
    .description(
      "Cursor's beforeShellExecution / beforeMCPExecution hook: its input on stdin, { permission, … } on stdout",
    )
    .option(...gatewayFlag)
    .action(
      blocking(async (o: HookOptions) => {
        const answer = await ask(gatewayOf(o), fromCursor(jsonOf(await stdin())));
        const out = { permission: answer.decision, userMessage: answer.reason, agentMessage: answer.reason };
        process.stdout.write(`${JSON.stringify(out)}\n`);
      }),
    );
}

/**
 * A hook that fails must block, not let the call through: Claude Code and Cursor take exit 2 as a block (with stderr
 * as the reason), while exit 1, what the CLI's main gives other failures, is a non-blocking error there.
 */
function blocking(action: (o: HookOptions) => Promise<void>): (o: HookOptions) => Promise<void> {
  return async (o) => {
    try {
      await action(o);
    } catch (err) {
      const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
      process.stderr.write(`countersign: ${message}\n`);
      process.exitCode = 2;
    }
  };
}

function gatewayOf(o: HookOptions): string {
  const url = o.gateway ?? setting('COUNTERSIGN_GATEWAY_URL');
  if (!/^https?:\/\/[^/]/.test(url))
    throw new UsageError(`--gateway ${url}: must be the gateway's http(s) URL such as http://127.0.0.1:8235`);
  return url.replace(/\/(mcp)?\/?$/, '');
}

async function stdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function jsonOf(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // one line below
  }
  throw new UsageError("stdin is not a hook's JSON input: configure this command as the agent's hook");
}

/** Cursor's input as a PreToolUse: shell commands are the tool `Shell`; an MCP tool keeps its name. */
function fromCursor(c: Record<string, unknown>): Record<string, unknown> {
  const roots = Array.isArray(c.workspace_roots) ? (c.workspace_roots as unknown[]) : [];
  const common = {
    session_id: String(c.conversation_id ?? c.generation_id ?? 'cursor'),
    cwd: typeof c.cwd === 'string' ? c.cwd : typeof roots[0] === 'string' ? roots[0] : process.cwd(),
    hook_event_name: 'PreToolUse',
  };
  if (c.hook_event_name === 'beforeShellExecution')
    return { ...common, tool_name: 'Shell', tool_input: { command: c.command } };
  if (c.hook_event_name === 'beforeMCPExecution') {
    let input: unknown = c.tool_input;
    if (typeof input === 'string')
      try {
        input = JSON.parse(input);
      } catch {
        input = { input };
      }
    return { ...common, tool_name: c.tool_name, tool_input: input };
  }
  throw new UsageError(
    `hook_event_name ${JSON.stringify(c.hook_event_name)}: countersign hook cursor answers beforeShellExecution and beforeMCPExecution`,
  );
}

/** A gateway with sign-in (--requester-jwks) wants the engineer's token: COUNTERSIGN_GATEWAY_TOKEN, never logged. */
function bearer(): Record<string, string> {
  const token = setting('COUNTERSIGN_GATEWAY_TOKEN');
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** A PostToolUse: forwarded, and `{}` printed whatever the gateway says (the tool has run; nothing is held up). */
async function report(gateway: string, input: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${gateway}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer() },
    body: JSON.stringify(input),
  }).catch((err: Error) => err);
  if (res instanceof Error || !res.ok) {
    const why = res instanceof Error ? res.message : ((await res.json().catch(() => ({}))) as { error?: string }).error;
    process.stderr.write(`countersign: the outcome was not recorded: ${why ?? 'the gateway refused it'}\n`);
  }
  process.stdout.write('{}\n');
}

async function ask(gateway: string, input: Record<string, unknown>): Promise<Answer> {
  const deny = (reason: string): Answer => ({ decision: 'deny', reason: `Countersign: ${reason}` });
  let res: Response;
  try {
    res = await fetch(`${gateway}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer() },
      body: JSON.stringify(input),
    });
  } catch (err) {
    return deny(
      `the gateway at ${gateway} cannot be reached (${(err as Error).message}); is countersign gateway running?`,
    );
  }
  const body = (await res.json().catch(() => ({}))) as {
    error?: string;
    hookSpecificOutput?: { permissionDecision?: Decision; permissionDecisionReason?: string };
  };
  const out = body.hookSpecificOutput;
  if (!res.ok || !out?.permissionDecision) return deny(body.error ?? `the gateway answered HTTP ${res.status}`);
  return { decision: out.permissionDecision, reason: out.permissionDecisionReason ?? '' };
}
