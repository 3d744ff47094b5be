// COUNTERSIGN_SLACK_USERS: which approver each Slack user is, from a JSON file `{ "U0123ABC": "ann" }` read once
// when `countersign serve` starts. A Slack user id alone is no approver: anyone not in the file is refused.
import { readFileSync } from 'node:fs';
import type { NamesKnown } from '../../contract/approverName';
import { checkedApprover } from './identity';

const SLACK_USER_ID = /^[A-Z0-9]{2,40}$/;

/** The mapping, or an Error with one line naming the file and what to fix (a name passing for an earlier one's too). */
export function readSlackUsers(file: string, names: Pick<NamesKnown, 'mixedScripts'> = {}): Map<string, string> {
  const bad = (why: string) => new Error(`COUNTERSIGN_SLACK_USERS ${file}: ${why}`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw bad(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw bad(`is not valid JSON (${(err as Error).message})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw bad('must be a JSON object of Slack user ids and approvers, e.g. { "U0123ABC": "ann" }');
  const users = new Map<string, string>();
  for (const [id, approver] of Object.entries(parsed)) {
    if (!SLACK_USER_ID.test(id)) throw bad(`"${id.slice(0, 40)}" is not a Slack user id (like U0123ABC)`);
    if (typeof approver !== 'string')
      throw bad(
        `the approver of ${id} must be a name in quotes, e.g. "${id}": "ann", not ${JSON.stringify(approver).slice(0, 40)}`,
      );
    const checked = checkedApprover(approver, { ...names, known: users.values() });
    if ('problem' in checked) throw bad(`the approver of ${id} must be a name: ${checked.problem}`);
    users.set(id, checked.approver);
  }
  if (!users.size) throw bad('maps no Slack user: add one, e.g. { "U0123ABC": "ann" }');
  return users;
}
