// The documentation as the doc tests read it: README.md, CONTRIBUTING.md and docs/*.md, split into fenced code
// blocks (with the file and line each starts on) and the prose between them. test/unit/docSnippets.test.ts
// type-checks the TypeScript blocks; test/unit/docCommands.test.ts checks every `countersign` command shown;
// test/unit/docLinks.test.ts checks every relative link and each contents list.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const REPO = join(__dirname, '..', '..');

export interface FencedBlock {
  /** The file, relative to the repository. */
  file: string;
  /** The language after the opening fence (lower case; '' when none). */
  lang: string;
  /** 1-based line of the block's first content line in the file. */
  line: number;
  /** The block's lines, without the fences and without the fence's indentation. */
  lines: string[];
}

export interface ProseLine {
  file: string;
  line: number;
  text: string;
}

/** README.md, CONTRIBUTING.md and every docs/*.md that exists. */
export function docFiles(root = REPO): string[] {
  const top = ['README.md', 'CONTRIBUTING.md'].map((f) => join(root, f)).filter((f) => existsSync(f));
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => join(root, 'docs', f))
    : [];
  return [...top, ...docs];
}

/** Splits one Markdown text into its fenced blocks and the prose lines outside them. */
export function splitMarkdown(file: string, text: string): { blocks: FencedBlock[]; prose: ProseLine[] } {
  const blocks: FencedBlock[] = [];
  const prose: ProseLine[] = [];
  const lines = text.split('\n');
  let open: { fence: string; indent: number; block: FencedBlock } | undefined;
  lines.forEach((raw, i) => {
    if (!open) {
      const m = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(raw);
      if (m) {
        open = {
          fence: m[2]!,
          indent: m[1]!.length,
          block: { file, lang: m[3]!.toLowerCase(), line: i + 2, lines: [] },
        };
      } else {
        prose.push({ file, line: i + 1, text: raw });
      }
      return;
    }
    if (raw.trim().startsWith(open.fence) && raw.trim().replace(/[`~]/g, '') === '') {
      blocks.push(open.block);
      open = undefined;
      return;
    }
    const indent = /^\s*/.exec(raw)![0].length;
    open.block.lines.push(raw.slice(Math.min(indent, open.indent)));
  });
  if (open) throw new Error(`${file}:${open.block.line - 1}: a code fence is never closed`);
  return { blocks, prose };
}

/** Every documentation file, split. */
export function readDocs(root = REPO): Array<{ file: string; blocks: FencedBlock[]; prose: ProseLine[] }> {
  return docFiles(root).map((path) => {
    const file = relative(root, path);
    return { file, ...splitMarkdown(file, readFileSync(path, 'utf8')) };
  });
}
