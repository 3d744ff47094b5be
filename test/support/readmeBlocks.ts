// README.md's TypeScript examples as a reader saves them: each block under the `.mts` name the prose after it
// gives ("Save it as `approve.mts` …"). Run in a clone (test/integration/readmeExamples.test.ts) and in a project
// that installed the packed package (test/package/package.test.ts). And the README's install lines, which that
// package test runs as written.
import { readDocs } from './docBlocks';

export interface ReadmeExample {
  /** The file name the README says to save the block as. */
  file: string;
  /** The block, as pasted. */
  text: string;
  /** README.md's line the block starts on. */
  line: number;
}

export function readmeExamples(): ReadmeExample[] {
  const readme = readDocs().find((d) => d.file === 'README.md')!;
  return readme.blocks
    .filter((b) => b.lang === 'ts')
    .map((block) => {
      const after = readme.prose
        .filter((p) => p.line > block.line + block.lines.length)
        .slice(0, 3)
        .map((p) => p.text)
        .join(' ');
      const named = /Save it as `([\w-]+\.mts)`/.exec(after);
      if (!named) throw new Error(`README.md:${block.line}: the block is not followed by "Save it as \`<name>.mts\`"`);
      return { file: named[1]!, text: `${block.lines.join('\n')}\n`, line: block.line };
    });
}

/** The README's install ("In your own service"), as its one block and the allowScripts line after it give it. */
export interface InstallLines {
  /** Lines run in a clone of this repository (under `# in a clone`). */
  clone: string[];
  /** Lines run in your project, with the clone in ../countersign (under `# in your project`). */
  project: string[];
  /** The `npm install-scripts deny …` line the prose after the block gives. */
  deny: string;
}

export function installLines(): InstallLines {
  const readme = readDocs().find((d) => d.file === 'README.md')!;
  const heading = readme.prose.find((p) => p.text === '## In your own service');
  const block = heading && readme.blocks.find((b) => b.lang === 'sh' && b.line > heading.line);
  if (!block) throw new Error('README.md: no sh block under "## In your own service"');
  const lines: Pick<InstallLines, 'clone' | 'project'> = { clone: [], project: [] };
  let into: string[] | undefined;
  for (const [i, text] of block.lines.entries()) {
    if (text.startsWith('# in a clone')) into = lines.clone;
    else if (text.startsWith('# in your project')) into = lines.project;
    else if (!into) throw new Error(`README.md:${block.line + i}: a line before "# in a clone" / "# in your project"`);
    else if (text.trim()) into.push(text);
  }
  const deny = readme.prose
    .filter((p) => p.line > block.line)
    .slice(0, 6)
    .map((p) => /`(npm install-scripts deny [^`]+)`/.exec(p.text)?.[1])
    .find((line) => line !== undefined);
  if (!deny) throw new Error(`README.md:${block.line}: no \`npm install-scripts deny …\` line after the install block`);
  return { ...lines, deny };
}
