// Every `countersign` command the docs show exists, with every --flag it is given. Commands are taken from
// bash/sh/shell/console blocks (in console blocks, the `$ ` lines) and from inline code in the prose that starts
// with `countersign ` or `npx countersign `; each is checked against the CLI's own commander program (cli/cli.ts),
// walked in process: no server, no child processes. A placeholder in the command's place (`countersign …`,
// `countersign <command> --help`) names no command and is skipped.
import { Command, type Option } from 'commander';
import { type FencedBlock, type ProseLine, readDocs, splitMarkdown } from '../support/docBlocks';

const SHELL = new Set(['bash', 'sh', 'shell', 'console', 'zsh']);

export interface Invocation {
  where: string;
  /** The words after `countersign`, quotes removed; `quoted` marks values that were quoted. */
  words: Array<{ text: string; quoted: boolean }>;
}

/** Shell-ish words: '…' and "…" are one word each; a `#` after whitespace starts a comment. */
function wordsOf(text: string): Array<{ text: string; quoted: boolean }> {
  const words: Array<{ text: string; quoted: boolean }> = [];
  const re = /\s*(?:'([^']*)'|"((?:[^"\\]|\\.)*)"|(#.*$)|([^\s'"]+))/gy;
  for (let m = re.exec(text); m && m[0] !== ''; m = re.exec(text)) {
    if (m[3] !== undefined) break;
    if (m[1] !== undefined || m[2] !== undefined) words.push({ text: m[1] ?? m[2]!, quoted: true });
    else words.push({ text: m[4]!, quoted: false });
  }
  return words;
}

/** The `countersign …` invocations on one command line: split at && || ; | and $( , env assignments and npx dropped. */
export function invocationsOn(line: string, where: string): Invocation[] {
  const out: Invocation[] = [];
  const normalised = line
    .replace(/\bnpm run countersign --(?=\s)/g, 'countersign')
    .replace(/\bnode bin\/countersign\.js\b/g, 'countersign');
  for (const segment of normalised.split(/&&|\|\||;|\||\$\(|`/)) {
    const words = wordsOf(segment);
    while (words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[0]!.text)) words.shift();
    if (words[0]?.text === 'npx') words.shift();
    if (words[0]?.text === 'countersign' && !words[0].quoted) out.push({ where, words: words.slice(1) });
  }
  return out;
}

/** Every invocation in one file's blocks and prose. */
export function invocationsIn(blocks: FencedBlock[], prose: ProseLine[]): Invocation[] {
  const out: Invocation[] = [];
  for (const b of blocks) {
    if (!SHELL.has(b.lang)) continue;
    const joined: Array<{ text: string; line: number }> = [];
    b.lines.forEach((text, i) => {
      const prev = joined[joined.length - 1];
      if (prev && prev.text.endsWith('\\')) prev.text = `${prev.text.slice(0, -1)} ${text}`;
      else joined.push({ text, line: b.line + i });
    });
    for (const { text, line } of joined) {
      if (b.lang === 'console' && !text.startsWith('$ ')) continue;
      out.push(...invocationsOn(b.lang === 'console' ? text.slice(2) : text, `${b.file}:${line}`));
    }
  }
  for (const p of prose) {
    for (const m of p.text.matchAll(/`((?:npx )?countersign [^`]+)`/g))
      out.push(...invocationsOn(m[1]!, `${p.file}:${p.line}`));
  }
  return out;
}

/** A word that stands for any command: `…`, `...`, `<command>`. */
const PLACEHOLDER = /^(…|\.\.\.|<[^>]*>)$/;

const longFlags = (c: Command) => (c.options as readonly Option[]).map((o) => o.long).filter((l): l is string => !!l);

/** What is wrong with one invocation, against the CLI's program; undefined when it is fine. */
export function problemOf(program: Command, inv: Invocation): string | undefined {
  const globals = new Set([...longFlags(program), '--help']);
  const words = [...inv.words];
  // Global options may come before the command, each with its value.
  while (words[0] && globals.has(words[0].text.split('=')[0]!)) {
    const flag = words.shift()!.text;
    if (!flag.includes('=') && flag !== '--help') words.shift();
  }
  const name = words.shift();
  if (!name || name.text.startsWith('-')) return undefined; // `countersign` or `countersign --help`
  if (PLACEHOLDER.test(name.text)) return undefined; // `countersign …`, `countersign <command> --help`: no command named
  const path = [name.text];
  let command = program.commands.find((c) => c.name() === name.text || c.aliases().includes(name.text));
  if (!command)
    return `${inv.where}: countersign ${name.text}: no such command (commands: ${program.commands.map((c) => c.name()).join(', ')})`;
  const subcommands = command.commands.filter((c) => c.name() !== 'help');
  // A command with an action of its own (`approvals`, beside `approvals report`) also runs without a subcommand.
  const ownAction = Boolean((command as unknown as { _actionHandler?: unknown })._actionHandler);
  if (subcommands.length && words[0] && !words[0].text.startsWith('-')) {
    const sub = words[0].text;
    const found = subcommands.find((c) => c.name() === sub || c.aliases().includes(sub));
    if (!found && !ownAction)
      return `${inv.where}: countersign ${name.text} ${sub}: no such command (${name.text} has: ${subcommands.map((c) => c.name()).join(', ')})`;
    if (found) {
      words.shift();
      command = found;
      path.push(sub);
    }
  }
  const accepted = new Set([...globals, ...longFlags(command)]);
  for (const w of words) {
    if (w.quoted) continue;
    for (const flag of w.text.match(/--[a-z][a-z0-9-]*/g) ?? []) {
      if (!accepted.has(flag))
        return `${inv.where}: countersign ${path.join(' ')} does not accept ${flag} (it takes: ${[...accepted].join(' ')})`;
    }
  }
  return undefined;
}

/** The CLI's commander program, as cli/cli.ts builds it: main() hands it to parseAsync, which stops there. */
async function cliProgram(): Promise<Command> {
  const spy = jest.spyOn(Command.prototype, 'parseAsync').mockImplementation(function (this: Command) {
    return Promise.resolve(this);
  });
  try {
    await (require('../../cli/cli') as typeof import('../../cli/cli')).main(['node', 'countersign']);
    const program = spy.mock.contexts[0];
    if (!program) throw new Error('cli/cli.ts main() did not parse a program');
    return program;
  } finally {
    spy.mockRestore();
  }
}

let program: Command;
beforeAll(async () => {
  program = await cliProgram();
});

const docs = readDocs();
const invocations = docs.flatMap((d) => invocationsIn(d.blocks, d.prose));

test('the docs show countersign commands to check', () => {
  expect(invocations.length).toBeGreaterThan(20);
});

test('every countersign command in the docs exists and accepts its flags', () => {
  expect(invocations.map((inv) => problemOf(program, inv)).filter(Boolean)).toEqual([]);
});

test('negative control: a made-up command, subcommand and flag are reported', () => {
  const text = [
    '```sh',
    'countersign frobnicate demo-1',
    'countersign approve demo-1 c1 --yolo',
    'countersign session shwo ann',
    'COUNTERSIGN_CODEC_TOKEN=x npx countersign codec-server --port 1 --prot 2',
    'countersign approve demo-1 c1 --as ann --reason "no --such-flag inside quotes"   # fine',
    '```',
    '```console',
    '$ countersign pending --agnet x',
    'countersign: output lines are not commands',
    '```',
    'Prose with `countersign reject demo-1 --all --mesage no` inline.',
  ].join('\n');
  const { blocks, prose } = splitMarkdown('control.md', text);
  expect(
    invocationsIn(blocks, prose)
      .map((inv) => problemOf(program, inv))
      .filter(Boolean),
  ).toEqual([
    expect.stringMatching(/^control\.md:2: countersign frobnicate: no such command/),
    expect.stringMatching(/^control\.md:3: countersign approve does not accept --yolo/),
    expect.stringMatching(/^control\.md:4: countersign session shwo: no such command/),
    expect.stringMatching(/^control\.md:5: countersign codec-server does not accept --prot/),
    expect.stringMatching(/^control\.md:9: countersign pending does not accept --agnet/),
    expect.stringMatching(/^control\.md:12: countersign reject does not accept --mesage/),
  ]);
});
