// How a call's arguments read for a person (every surface uses this), and times relative to now.
import { argumentText, argumentView } from '../../core/approvals/argumentView';
import { relativeTime } from '../../core/relativeTime';

test('an object is a key/value table; strings as they are, other values as JSON', () => {
  const view = argumentView(JSON.stringify({ to: 'alice@example.com', subject: 'Hi', cc: ['b@x.io'], urgent: true }));
  expect(view).toEqual({
    fields: [
      { key: 'to', value: 'alice@example.com' },
      { key: 'subject', value: 'Hi' },
      { key: 'cc', value: '[\n  "b@x.io"\n]' },
      { key: 'urgent', value: 'true' },
    ],
  });
  expect(argumentText(view)).toEqual([
    'to: alice@example.com',
    'subject: Hi',
    'cc: [',
    '    "b@x.io"',
    '  ]',
    'urgent: true',
  ]);
});

test('shell commands are the lines that run; deceptive characters are shown, never passed through', () => {
  const view = argumentView(
    JSON.stringify({ commands: ['ls -la', 'echo safe\r rm -rf /', 'printf "a\nb"'], timeoutMs: 5000 }),
  );
  expect(view.commands).toEqual(['ls -la', 'echo safe\\u000d rm -rf /', 'printf "a\nb"']);
  expect(argumentText(view)).toEqual([
    '$ ls -la',
    '$ echo safe\\u000d rm -rf /',
    '$ printf "a',
    '> b"',
    'timeoutMs: 5000',
  ]);
});

test('file edits are diffs, marked line by line', () => {
  const diff = '@@ -1,2 +1,2 @@\n keep\r\n-old\n+new\n';
  const view = argumentView(
    JSON.stringify({
      operations: [
        { type: 'update_file', path: 'src/a.ts', diff },
        { type: 'delete_file', path: 'b.ts' },
      ],
    }),
  );
  expect(view.files).toEqual([
    {
      operation: 'update_file',
      path: 'src/a.ts',
      diff: [
        { mark: '@', text: '@@ -1,2 +1,2 @@' },
        { mark: ' ', text: ' keep' },
        { mark: '-', text: 'old' },
        { mark: '+', text: 'new' },
      ],
    },
    { operation: 'delete_file', path: 'b.ts', diff: [] },
  ]);
  expect(argumentText(view)).toEqual([
    'update_file src/a.ts',
    '@@ -1,2 +1,2 @@',
    ' keep',
    '-old',
    '+new',
    'delete_file b.ts',
  ]);
});

test('arguments that are not a JSON object are shown as they are', () => {
  expect(argumentView('not json \u202e')).toEqual({ raw: 'not json \\u202e' });
  expect(argumentView('[1,2]')).toEqual({ raw: '[\n  1,\n  2\n]' });
  expect(argumentView('{"commands": []}')).toEqual({ fields: [{ key: 'commands', value: '[]' }] });
});

test('relative times, in words and compact', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  expect(relativeTime('2026-11-25T11:59:30Z', now)).toBe('just now');
  expect(relativeTime('2026-11-25T11:57:00Z', now)).toBe('3 min ago');
  expect(relativeTime('2026-11-25T14:00:00Z', now)).toBe('in 2 h');
  expect(relativeTime('2026-11-20T12:00:00Z', now)).toBe('5 d ago');
  expect(relativeTime('2026-11-25T12:00:20Z', now)).toBe('in under a minute');
  expect(relativeTime('2026-11-25T11:59:18Z', now, { compact: true })).toBe('42s ago');
  expect(relativeTime('2026-11-25T13:00:00Z', now, { compact: true })).toBe('in 1h');
  expect(relativeTime('not a time', now)).toBe('not a time');
});
