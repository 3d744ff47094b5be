import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOutbox, recordOnce } from '../../agents/demo/outbox';

describe('demo outbox', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-outbox-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const entry = (key: string) => ({ idempotencyKey: key, kind: 'email' });

  test('a key is written once, however often it is recorded', async () => {
    const path = join(dir, 'once.jsonl');
    const wrote = await Promise.all([
      recordOnce(entry('run:c1'), path),
      recordOnce(entry('run:c1'), path),
      recordOnce(entry('run:c2'), path),
    ]);
    expect(wrote).toEqual([true, false, true]);
    expect(await recordOnce(entry('run:c1'), path)).toBe(false);
    expect((await readOutbox(path)).map((e) => e.idempotencyKey)).toEqual(['run:c1', 'run:c2']);
  });

  test('lines another process appended are seen; a half-written line is read once it is complete', async () => {
    const path = join(dir, 'shared.jsonl');
    expect(await recordOnce(entry('a'), path)).toBe(true);
    appendFileSync(path, JSON.stringify(entry('b')) + '\n' + JSON.stringify(entry('c')).slice(0, 10));
    expect(await recordOnce(entry('b'), path)).toBe(false);
    appendFileSync(path, JSON.stringify(entry('c')).slice(10) + '\n');
    expect(await recordOnce(entry('c'), path)).toBe(false);
    expect((await readOutbox(path)).map((e) => e.idempotencyKey)).toEqual(['a', 'b', 'c']);
  });

  test('a replaced or deleted file is read afresh', async () => {
    const path = join(dir, 'replaced.jsonl');
    expect(await recordOnce(entry('x'), path)).toBe(true);
    rmSync(path);
    expect(await recordOnce(entry('x'), path)).toBe(true);
    writeFileSync(path + '.new', JSON.stringify(entry('y')) + '\n');
    rmSync(path);
    renameSync(path + '.new', path);
    expect(await recordOnce(entry('x'), path)).toBe(true);
    expect(await recordOnce(entry('y'), path)).toBe(false);
  });
});
