// A shell for the model (after the OpenAI Agents SDK's ShellTool): the model sends commands, a person approves
// them (by default), and they run in the tool activity, once per approved call, in `cwd`, or in the team's own
// `shell` (the SDK's Shell interface: a sandbox, a container, a remote host).
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { type ApprovalPolicy, durationMs, durationSchema } from '../contract/approvalPolicy';
import { defineTool, type Tool, type ToolConfig } from './defineTool';
import { setting } from '../temporal.config';

/** Per stream and command: a model gains little from more, and tool outputs are stored in history. */
export const MAX_STREAM_CHARS = 20_000;
/** The whole answer; Temporal refuses payloads of 2 MB, so many chatty commands must not add up to that. */
export const MAX_OUTPUT_CHARS = 100_000;
/** After a timeout kill, how long to wait for the pipes to close (a process that left the group may hold them). */
const PIPE_GRACE_MS = 2_000;

const parameters = z.object({
  commands: z
    .array(z.string().min(1))
    .min(1)
    .describe(
      'Shell commands, run in order with /bin/sh -c in the working directory; the first that fails stops the rest',
    ),
});
export type ShellParameters = z.infer<typeof parameters>;

/** One command's outcome as a Shell reports it (the OpenAI Agents SDK's ShellOutputResult). */
export interface ShellOutput {
  stdout: string;
  stderr: string;
  outcome: { type: 'timeout' } | { type: 'exit'; exitCode: number | null };
}

/** What runs a call's commands instead of /bin/sh: the OpenAI Agents SDK's Shell interface, one output per command. */
export interface Shell {
  run(action: { commands: string[]; timeoutMs?: number }): Promise<{ output: ShellOutput[]; maxOutputLength?: number }>;
}

export interface ShellToolOptions extends ApprovalPolicy {
  /** Tool name the model sees. Default 'shell'. */
  name?: string;
  /** Working directory of every command (resolved against the worker's cwd when relative). Not with `shell`. */
  cwd?: string;
  /** Runs the commands instead of /bin/sh in `cwd` (in the tool activity); it keeps its own directory and environment. */
  shell?: Shell;
  /** Default true: a person approves each call. A predicate may look at the commands. */
  needsApproval?: ToolConfig<typeof parameters>['needsApproval'];
  /** Decides a gated call in code first (e.g. approve read-only commands); undefined asks a person. */
  onApproval?: ToolConfig<typeof parameters>['onApproval'];
  /** Default false: a command is never run twice on its own; a call whose attempt died is `uncertain`. */
  idempotent?: boolean;
  /**
   * Limit for all commands of one call together ('30s', '5m'); then the running command is killed. Default '30s'.
   * Keep it below the run's toolTimeout (5 minutes by default): past that the call is `uncertain` (see idempotent).
   */
  timeout?: string;
  /** Variables for the commands, on top of PATH and HOME. The worker's own environment is never passed on. */
  env?: Record<string, string>;
  description?: string;
}

interface Captured {
  text: string;
  total: number;
}

interface Ran {
  command: string;
  stdout: Captured;
  stderr: Captured;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

function capture(stream: Readable): Captured {
  const c: Captured = { text: '', total: 0 };
  stream.setEncoding('utf8'); // decodes multi-byte characters split across chunks
  stream.on('data', (s: string) => {
    c.total += s.length;
    if (c.text.length < MAX_STREAM_CHARS) c.text += s.slice(0, MAX_STREAM_CHARS - c.text.length);
  });
  return c;
}

function runOne(command: string, cwd: string, env: NodeJS.ProcessEnv, budgetMs: number): Promise<Ran> {
  return new Promise((done, fail) => {
    // detached: the command leads its own process group, so a timeout kills what it started too (`sleep 1; sleep 99`).
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout = capture(child.stdout);
    const stderr = capture(child.stderr);
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, PIPE_GRACE_MS).unref();
      },
      Math.max(0, budgetMs),
    );
    child.on('error', (err) => {
      clearTimeout(timer);
      fail(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ command, stdout, stderr, code, signal, timedOut });
    });
  });
}

function streamText(label: string, c: Captured): string {
  if (c.total === 0) return `${label}: (empty)`;
  const note =
    c.total > c.text.length
      ? `\n[${label} truncated: showing the first ${c.text.length} of ${c.total} characters]`
      : '';
  return `${label}:\n${c.text.replace(/\n$/, '')}${note}`;
}

function report(ran: Ran[], total: number, timedOut: string): string {
  const parts = ran.map((r) => {
    const status = r.timedOut
      ? timedOut
      : r.code === null
        ? r.signal
          ? `killed by ${r.signal}`
          : 'ended without an exit code'
        : `exit code: ${r.code}`;
    return [`$ ${r.command}`, status, streamText('stdout', r.stdout), streamText('stderr', r.stderr)].join('\n');
  });
  if (ran.length < total)
    parts.push(`(stopped: ${total - ran.length} later command${total - ran.length === 1 ? '' : 's'} not run)`);
  const text = parts.join('\n\n');
  return text.length > MAX_OUTPUT_CHARS
    ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n[output truncated: showing the first ${MAX_OUTPUT_CHARS} of ${text.length} characters]`
    : text;
}

const captured = (text: string, limit: number): Captured => ({ text: text.slice(0, limit), total: text.length });

/** A Shell's outputs in the same report as the built-in runner's (each stream cut at its maxOutputLength too). */
async function runInShell(shell: Shell, commands: string[], timeoutMs: number | undefined): Promise<string> {
  const result = await shell.run({ commands, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  const limit = Math.min(MAX_STREAM_CHARS, result.maxOutputLength ?? MAX_STREAM_CHARS);
  const ran = (result.output ?? []).map((o, i): Ran => ({
    command: commands[i] ?? `(output ${i + 1})`,
    stdout: captured(String(o.stdout ?? ''), limit),
    stderr: captured(String(o.stderr ?? ''), limit),
    code: o.outcome?.type === 'exit' ? o.outcome.exitCode : null,
    signal: null,
    timedOut: o.outcome?.type === 'timeout',
  }));
  return report(ran, commands.length, 'timed out');
}

export function shellTool(options: ShellToolOptions): Tool<typeof parameters> {
  const {
    name = 'shell',
    cwd,
    shell,
    needsApproval = true,
    onApproval,
    idempotent = false,
    timeout = '30s',
    env,
    description,
    ...policy
  } = options;
  if (shell && (cwd || env))
    throw new Error(`tool ${name}: give cwd and env to the built-in runner or a shell of your own, not both`);
  if (shell && typeof shell.run !== 'function')
    throw new Error(`tool ${name}: shell must have a run({ commands }) method (the Agents SDK's Shell)`);
  if (!cwd && !shell) throw new Error(`tool ${name}: cwd is required (or give a shell of your own)`);
  if (!durationSchema.safeParse(timeout).success)
    throw new Error(`tool ${name}: timeout must be a duration such as "30s" or "5m", got ${JSON.stringify(timeout)}`);
  const dir = resolve(cwd ?? '.');
  const limitMs = durationMs(timeout);
  const within =
    shell && options.timeout === undefined ? '' : ` All commands of one call must finish within ${timeout}.`;
  return defineTool({
    name,
    description:
      description ??
      (shell
        ? 'Run shell commands, in order. '
        : 'Run shell commands (/bin/sh) in the working directory. Commands run in order; the first that exits non-zero stops the rest. ') +
        `You get each command's exit code, stdout and stderr.${within}`,
    parameters,
    needsApproval,
    ...(onApproval ? { onApproval } : {}),
    idempotent,
    ...policy,
    execute: async ({ commands }) => {
      if (shell) return runInShell(shell, commands, options.timeout === undefined ? undefined : limitMs);
      const where = await stat(dir).catch(() => undefined);
      if (!where?.isDirectory()) throw new Error(`the working directory ${dir} does not exist`);
      // Only PATH and HOME from here: the worker's environment holds its secrets (API keys, cloud credentials).
      const childEnv: NodeJS.ProcessEnv = { PATH: setting('PATH'), HOME: homedir(), ...env };
      const deadline = Date.now() + limitMs;
      const ran: Ran[] = [];
      for (const command of commands) {
        const r = await runOne(command, dir, childEnv, deadline - Date.now());
        ran.push(r);
        if (r.timedOut || r.code !== 0) break;
      }
      return report(ran, commands.length, `timed out after ${timeout} (the limit for the whole call): killed`);
    },
  });
}
