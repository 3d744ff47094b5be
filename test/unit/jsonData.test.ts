// core/jsonData.ts: what a guardrail's outputInfo becomes before it is recorded (history, the pending list, details).
import { jsonData } from '../../core/jsonData';

test('JSON data passes through; what JSON cannot carry is dropped; what it cannot encode becomes text', () => {
  expect(jsonData(undefined)).toBeUndefined();
  expect(jsonData({ score: 0.9, found: ['iban'], note: undefined, at: new Date(0) })).toEqual({
    score: 0.9,
    found: ['iban'],
    at: '1970-01-01T00:00:00.000Z',
  });
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  expect(jsonData(cyclic)).toBe('[object Object]');
  expect(jsonData(10n)).toBe('10');
});
