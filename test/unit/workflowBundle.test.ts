// The prebuilt workflow bundle's source map: the mappings stay inline (the SDK loads only inline maps and maps every
// workflow stack trace through them), the sources' text goes beside the bundle, and joins back in for the stack
// trace query's sources.
import { parseWorkflowCode } from '@temporalio/worker/lib/worker';
import { joinSourceMap, splitSourceMap } from '../../worker/workflowBundle';

const map = {
  version: 3,
  file: 'bundle.js',
  sources: ['webpack://countersign/./workflows/a.ts'],
  names: ['run'],
  mappings: 'AAAA,SAASA',
  sourcesContent: ['export function run() {}\n'],
};
const inline = (m: object) =>
  `var x = 1;\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(m)).toString('base64')}\n`;

test('a split bundle keeps its mappings inline, without the sources’ text; the whole map comes back beside it', () => {
  const { code, map: whole } = splitSourceMap(inline(map));
  const { sourcesContent: _, ...mappings } = map;
  expect(parseWorkflowCode(code, '/abs/bundle.js').sourceMap).toEqual(mappings);
  expect(JSON.parse(whole)).toEqual(map);
  expect(parseWorkflowCode(joinSourceMap(code, whole), '/abs/bundle.js').sourceMap).toEqual(map);
  expect(code.startsWith('var x = 1;\n//# sourceMappingURL=')).toBe(true);
});

test('a bundle without an inline source map is refused, naming what is missing', () => {
  expect(() => splitSourceMap('var x = 1;\n')).toThrow('the workflow bundle has no inline source map to split');
});
