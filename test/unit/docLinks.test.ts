// Every relative link in the docs (README.md, CONTRIBUTING.md, docs/*.md) lands: `[x](path)`, `[x](path#anchor)`
// and `[x](#anchor)` name a file that exists in the repository and, for a Markdown file, a heading in it, slugged
// as GitHub slugs them. Links in code (fenced blocks, inline code) are not links. And a page's contents stay whole:
// a file has a contents list when a list item before its first `##` heading links into the page; such a file must
// link every `##` heading's anchor before that first heading. docs/agents.md and docs/tools.md must have one.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { type ProseLine, readDocs, REPO, splitMarkdown } from '../support/docBlocks';

export interface Doc {
  file: string;
  prose: ProseLine[];
}

const HEADING = /^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const LINK = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g;
const MUST_HAVE_CONTENTS = ['docs/agents.md', 'docs/tools.md'];

/** A heading's anchor as GitHub makes it: the rendered text lower-cased, punctuation but `-` and `_` dropped, spaces → `-`. */
export function slugOf(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every heading with its anchor, in order; a repeated anchor gets `-1`, `-2`, … as on GitHub (github-slugger). */
export function headingsOf(prose: ProseLine[]): Array<{ line: ProseLine; level: number; anchor: string }> {
  const seen = new Map<string, number>();
  const out: Array<{ line: ProseLine; level: number; anchor: string }> = [];
  for (const p of prose) {
    const m = HEADING.exec(p.text);
    if (!m) continue;
    const base = slugOf(m[2]!);
    let anchor = base;
    while (seen.has(anchor)) {
      seen.set(base, seen.get(base)! + 1);
      anchor = `${base}-${seen.get(base)!}`;
    }
    seen.set(anchor, 0);
    out.push({ line: p, level: m[1]!.length, anchor });
  }
  return out;
}

export const anchorsOf = (prose: ProseLine[]): Set<string> => new Set(headingsOf(prose).map((h) => h.anchor));

/** The prose as one text, line for line (code blocks and inline code blanked), so a link may wrap a line. */
function proseText(prose: ProseLine[]): string {
  const lines: string[] = [];
  for (const p of prose) {
    while (lines.length < p.line - 1) lines.push('');
    lines.push(p.text);
  }
  return lines.join('\n').replace(/(`+)[\s\S]*?\1/g, (code) => code.replace(/[^\n]/g, ' '));
}

/** Every link target in the prose, with the line it starts on. */
export function linksOf(doc: Doc): Array<{ where: string; target: string }> {
  const text = proseText(doc.prose);
  return [...text.matchAll(LINK)].map((m) => ({
    where: `${doc.file}:${text.slice(0, m.index).split('\n').length}`,
    target: m[1]!,
  }));
}

/** `%20` and the like as the browser reads them; a malformed escape stays as written (and will not match). */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** What is wrong with one file's relative links; `known` holds the anchors of the files being checked. */
export function linkProblems(doc: Doc, known: Map<string, Set<string>>, root = REPO): string[] {
  const problems: string[] = [];
  for (const { where, target } of linksOf(doc)) {
    if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(target)) continue; // https:, mailto:, //host: not ours to check
    const hash = target.indexOf('#');
    const path = decoded(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decoded(target.slice(hash + 1));
    const file = path === '' ? doc.file : relative(root, join(root, dirname(doc.file), path));
    if (file.startsWith('..') || (!known.has(file) && !existsSync(join(root, file)))) {
      problems.push(`${where}: ${target}: no file ${file}`);
      continue;
    }
    if (!anchor || !file.endsWith('.md')) continue;
    const anchors = known.get(file) ?? anchorsOf(splitMarkdown(file, readFileSync(join(root, file), 'utf8')).prose);
    if (!anchors.has(anchor)) problems.push(`${where}: ${target}: ${file} has no heading with anchor #${anchor}`);
  }
  return problems;
}

/** Whether the file has a contents list, and the `##` headings it leaves out. */
export function contentsProblems(doc: Doc): { hasContents: boolean; problems: string[] } {
  const first = doc.prose.find((p) => /^## /.test(p.text));
  const top = doc.prose.filter((p) => !first || p.line < first.line);
  const hasContents = top.some((p) => /^\s*[-*+] .*\]\(#/.test(p.text));
  if (!hasContents) return { hasContents, problems: [] };
  const listed = new Set(linksOf({ file: doc.file, prose: top }).map((l) => l.target));
  const problems = headingsOf(doc.prose)
    .filter((h) => h.level === 2 && !listed.has(`#${h.anchor}`))
    .map((h) => `${doc.file}:${h.line.line}: "${h.line.text}" is not in the contents list (link it as #${h.anchor})`);
  return { hasContents, problems };
}

const docs = readDocs();
const known = new Map(docs.map((d) => [d.file, anchorsOf(d.prose)]));

test('the docs hold relative links to check', () => {
  expect(docs.flatMap(linksOf).filter((l) => !/^[a-z]+:/.test(l.target)).length).toBeGreaterThan(100);
});

test('every relative link in the docs names a file that exists, and a heading in it', () => {
  expect(docs.flatMap((d) => linkProblems(d, known))).toEqual([]);
});

test('a page with a contents list lists every ## heading; agents.md and tools.md have one', () => {
  const results = docs.map((d) => ({ file: d.file, ...contentsProblems(d) }));
  expect(results.flatMap((r) => r.problems)).toEqual([]);
  expect(MUST_HAVE_CONTENTS.filter((f) => !results.find((r) => r.file === f)?.hasContents)).toEqual([]);
});

test('GitHub anchors: punctuation dropped, `_` and `-` kept, repeats numbered', () => {
  const text = [
    '# A',
    '## Shell and apply_patch tools',
    '## Tool-use behaviour: stop on a tool’s result',
    '## A',
    '## A',
  ];
  const { prose } = splitMarkdown('x.md', text.join('\n'));
  expect([...anchorsOf(prose)]).toEqual([
    'a',
    'shell-and-apply_patch-tools',
    'tool-use-behaviour-stop-on-a-tools-result',
    'a-1',
    'a-2',
  ]);
  expect(slugOf('Decisions in code: `onApproval` ([more](x.md))')).toBe('decisions-in-code-onapproval-more');
});

test('negative control: broken files, anchors and contents are reported, with file and line', () => {
  const text = [
    '# Control',
    '',
    '- [Here](#here) · [Nowhere](#nowhere)',
    '',
    '## Here',
    '',
    'Fine: [tools](tools.md#defining-tools), [up](../README.md), [web](https://example.com/x.md#y), `[code](gone.md)`.',
    'Broken: [a file](gone.md), [an anchor](agents.md#no-such-heading), [a',
    'wrapped one](#not-here).',
    '',
    '```md',
    '[in a block](gone.md)',
    '```',
    '',
    '## Left out',
    '',
    '## Here',
  ].join('\n');
  const doc = { file: 'docs/control.md', prose: splitMarkdown('docs/control.md', text).prose };
  const withControl = new Map([...known, [doc.file, anchorsOf(doc.prose)]]);
  expect(linkProblems(doc, withControl)).toEqual([
    'docs/control.md:3: #nowhere: docs/control.md has no heading with anchor #nowhere',
    'docs/control.md:8: gone.md: no file docs/gone.md',
    'docs/control.md:8: agents.md#no-such-heading: docs/agents.md has no heading with anchor #no-such-heading',
    'docs/control.md:8: #not-here: docs/control.md has no heading with anchor #not-here',
  ]);
  expect(contentsProblems(doc)).toEqual({
    hasContents: true,
    problems: [
      'docs/control.md:15: "## Left out" is not in the contents list (link it as #left-out)',
      'docs/control.md:17: "## Here" is not in the contents list (link it as #here-1)',
    ],
  });
});
