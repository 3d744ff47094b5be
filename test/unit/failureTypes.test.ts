// Failure types in one place: every type in contract/failureTypes.ts has a client error class, the constants are the
// wire strings, and no product file but the contract writes a failure type as a string literal (it throws and
// compares `Failure.X`), so a type cannot be misspelt in one place or added without its client class.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { FAILURES, FAILURE_TYPES, Failure, isFailureType } from '../../contract/failureTypes';
import {
  CountersignError,
  DecisionRejectedError,
  FAILURE_ERRORS,
  RunFailedError,
  errorForFailure,
} from '../../client/errors';
import { productFiles } from '../support/configScan';
import { GrantError } from '../../core/grants/grantsState';
import { ReviewError } from '../../core/approvals/reviewsState';
import { DecisionError } from '../../core/approvals/approvalBook';
import { Refusal } from '../../core/refusal';
import { DecisionProblem } from '../../servers/inbox/deciding';

const root = join(__dirname, '../..');
const CONTRACT = 'contract/failureTypes.ts';

/** String literals (and plain template literals) in `source` that are failure types, with their lines. */
function failureLiterals(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && isFailureType(node.text))
      found.push(`${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: '${node.text}'`);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

test('the failure types are the wire strings, each named by itself', () => {
  expect(FAILURE_TYPES.length).toBeGreaterThanOrEqual(20);
  expect(new Set(FAILURE_TYPES).size).toBe(FAILURE_TYPES.length);
  for (const type of FAILURE_TYPES) expect(Failure[type]).toBe(type);
  expect(Object.keys(Failure).sort()).toEqual([...FAILURE_TYPES].sort());
  // Wire contract version 1: these strings are what clients and the docs match on.
  expect(FAILURE_TYPES).toEqual(
    expect.arrayContaining([
      'MaxTurnsExceeded',
      'OutputValidationFailed',
      'ModelRequestRejected',
      'ModelRateLimited',
      'ModelServerError',
      'ModelUnreachable',
      'ApprovalTimedOut',
      'RunTimedOut',
      'PayloadTooLarge',
      'InvalidRunInput',
      'InvalidModelSettings',
      'DecisionRejected',
      'UnprocessedUpdate',
    ]),
  );
  expect(isFailureType('MaxTurnsExceeded')).toBe(true);
  expect(isFailureType('toString')).toBe(false);
  expect(isFailureType(undefined)).toBe(false);
});

test('every failure type has a client error class, of the kind its place says', () => {
  for (const type of FAILURE_TYPES) {
    const ErrorClass = FAILURE_ERRORS[type];
    expect(ErrorClass).toBeDefined();
    const err = errorForFailure({ message: 'why', type }, CountersignError);
    expect(err).toBeInstanceOf(CountersignError);
    expect(err).toBeInstanceOf(ErrorClass);
    expect(err.message).toBe('why');
    const shows = FAILURES[type].shows;
    if (shows === 'run' || shows === 'activity') expect(err).toBeInstanceOf(RunFailedError);
    if (shows === 'run') expect((err as RunFailedError).type).toBe(type);
  }
  expect(errorForFailure({ message: 'no', type: Failure.DecisionRejected }, CountersignError)).toBeInstanceOf(
    DecisionRejectedError,
  );
  const refused = errorForFailure({ message: 'no', type: Failure.GrantRefused }, CountersignError);
  // A grants or reviews refusal is a CountersignError, as in 1.0, that now carries its failure type.
  expect(refused.constructor).toBe(CountersignError);
  expect(refused.type).toBe('GrantRefused');
  // A type the contract does not know takes the class the caller names.
  const other = errorForFailure({ message: 'odd', type: 'SomethingElse' }, DecisionRejectedError);
  expect(other).toBeInstanceOf(DecisionRejectedError);
  expect(other.type).toBe('SomethingElse');
  expect(errorForFailure({ message: 'plain' }, RunFailedError)).toBeInstanceOf(RunFailedError);
});

test("core's refusals share one base and keep their own classes", () => {
  const refusals = [new GrantError('g'), new ReviewError('r'), new DecisionError('d')];
  expect(refusals.every((e) => e instanceof Refusal && e instanceof Error)).toBe(true);
  expect(refusals.map((e) => [e.name, e.failureType])).toEqual([
    ['GrantError', 'GrantRefused'],
    ['ReviewError', 'ReviewRefused'],
    ['DecisionError', 'DecisionRejected'],
  ]);
  expect(new DecisionError('d')).not.toBeInstanceOf(GrantError);
  const problem = new DecisionProblem('the form names no call');
  expect(problem).toBeInstanceOf(CountersignError);
  expect(problem.name).toBe('DecisionProblem');
});

test('no product file but the contract writes a failure type as a string', () => {
  const files = productFiles(root).filter((f) => /\.(ts|mts|cts)$/.test(f));
  expect(files.length).toBeGreaterThan(100);
  expect(files).toEqual(expect.arrayContaining([CONTRACT, 'workflows/agentRun.ts', 'activities/model/modelTurn.ts']));
  const found = files
    .filter((f) => f !== CONTRACT)
    .flatMap((f) => failureLiterals(f, readFileSync(join(root, f), 'utf8')));
  expect(found).toEqual([]);
});

test('the scan finds failure type literals, not comments or other strings (negative control)', () => {
  const source = [
    "throw ApplicationFailure.nonRetryable('used all turns', 'MaxTurnsExceeded');",
    'if (cause.type === `ToolUnavailable`) retry();',
    '// fails with RunTimedOut (a comment)',
    "const name = 'MaxTurnsExceededError';",
    'throw ApplicationFailure.create({ type: Failure.ApprovalTimedOut, message });',
  ].join('\n');
  expect(failureLiterals('workflows/x.ts', source)).toEqual([
    "workflows/x.ts:1: 'MaxTurnsExceeded'",
    "workflows/x.ts:2: 'ToolUnavailable'",
  ]);
  expect(failureLiterals(CONTRACT, readFileSync(join(root, CONTRACT), 'utf8')).length).toBeGreaterThan(20);
});
