// Every install line the docs show works today. Countersign is not on the npm registry (`npm install countersign`
// finds nothing), so a line that installs it names the tarball `npm pack` builds in a clone, the README's one way;
// the examples' package.json install it from that tarball too. test/package/package.test.ts runs the README's
// lines themselves in a new project.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDocs, REPO, splitMarkdown } from '../support/docBlocks';
import { installLines } from '../support/readmeBlocks';

const SHELL = new Set(['bash', 'sh', 'shell', 'console', 'zsh']);
const { name, version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};
const TARBALL = `${name}-${version}.tgz`;
const EXAMPLES = readdirSync(join(REPO, 'examples')).filter((e) => !e.startsWith('.'));

/** The docs, with each example's README. */
function allDocs() {
  const examples = EXAMPLES.map((e) => join('examples', e, 'README.md'))
    .filter((f) => readdirSync(join(REPO, f, '..')).includes('README.md'))
    .map((file) => ({ file, ...splitMarkdown(file, readFileSync(join(REPO, file), 'utf8')) }));
  return [...readDocs(), ...examples];
}

/** Each `npm install|i|add …` command in shell blocks and inline code: where it is, and the specs it names. */
function installCommands(): Array<{ where: string; specs: string[] }> {
  const out: Array<{ where: string; specs: string[] }> = [];
  const scan = (text: string, where: string) => {
    for (const segment of text.replace(/(^|\s)#.*$/, '').split(/&&|\|\||;|\||\(|\)/)) {
      const words = segment.trim().split(/\s+/);
      if (words[0] === 'npm' && ['install', 'i', 'add'].includes(words[1] ?? ''))
        out.push({ where, specs: words.slice(2).filter((w) => w && !w.startsWith('-')) });
    }
  };
  for (const doc of allDocs()) {
    for (const b of doc.blocks.filter((b) => SHELL.has(b.lang)))
      b.lines.forEach((line, i) => scan(line, `${b.file}:${b.line + i}`));
    for (const p of doc.prose) for (const m of p.text.matchAll(/`([^`]+)`/g)) scan(m[1]!, `${p.file}:${p.line}`);
  }
  return out;
}

test('no install line names countersign from the registry; each names the packed tarball', () => {
  const commands = installCommands();
  const countersign = commands.flatMap(({ where, specs }) =>
    specs.filter((s) => s.includes(name)).map((spec) => ({ where, spec })),
  );
  expect(countersign.filter(({ spec }) => spec !== `../countersign/${TARBALL}`)).toEqual([]);
  // The lines are found: the README, the client library, both bring-your-agents installs, getting started.
  expect(new Set(countersign.map(({ where }) => where.split(':')[0]))).toEqual(
    new Set(['README.md', 'docs/client-library.md', 'docs/bring-your-agents.md', 'docs/getting-started.md']),
  );
});

test("the examples install the package from the tarball `npm pack` leaves at the clone's root", () => {
  const deps = EXAMPLES.map((e) => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'examples', e, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    return { example: e, countersign: pkg.dependencies[name] };
  });
  expect(deps).toEqual(EXAMPLES.map((example) => ({ example, countersign: `file:../../${TARBALL}` })));
});

test("the README's install: pack in the clone, install the tarball in your project, then the allowScripts line", () => {
  expect(installLines()).toEqual({
    clone: ['npm install && npm pack'],
    project: [`npm install ../countersign/${TARBALL} zod`],
    deny: `npm install-scripts deny ${name} protobufjs @swc/core esbuild`,
  });
  // The client library's section shows the same block.
  const library = readDocs().find((d) => d.file === 'docs/client-library.md')!;
  const readme = readDocs().find((d) => d.file === 'README.md')!;
  const blockAfter = (doc: typeof readme, heading: string) => {
    const at = doc.prose.find((p) => p.text === heading)!.line;
    return doc.blocks.find((b) => b.line > at)!.lines;
  };
  expect(blockAfter(library, '## The package')).toEqual(blockAfter(readme, '## In your own service'));
});
