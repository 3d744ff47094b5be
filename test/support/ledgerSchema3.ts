// A ledger of schema 3, its rows as the store wrote them before schema 4 (the whole chain body as JSON in each
// record's row beside the columns it repeated, the trail as JSON text, the approvers with their own indexes): for
// the tests of the upgrade. Each write is a new run's (its records or its pending calls; no reviews).
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { canonicalApprover } from '../../contract/approverName';
import type { LedgerWrite } from '../../contract/ledgerRecords';
import { callRecord } from '../../core/approvals/callFold';
import { callColumns, isoTime } from '../../storage/ledger/ledgerAppend';
import { foldWrite, itemsOf } from '../../storage/ledger/ledgerFold';
import { type SchemaRunner, migrate } from '../../storage/ledger/ledgerSchema';
import { numbered } from '../../storage/ledger/pgLedger';

const marks = (n: number) => `(${Array.from({ length: n }, () => '?').join(', ')})`;

async function writeOld(db: SchemaRunner, w: LedgerWrite, ledgerId: string): Promise<void> {
  const fresh = itemsOf(w).sort((a, b) => a.seq - b.seq);
  const folded = foldWrite(w, { fresh, calls: [], waiting: [], end: { pos: 0, seq: null, hash: '' } });
  for (const { item, body, hash } of folded.entries) {
    if (item.kind !== 'entry') throw new Error('schema 3 test ledgers hold entries only');
    const e = item.record;
    const approver = e.approver ?? null;
    await db.run(
      `INSERT INTO ledger_entries (workflow_id, chain_id, seq, pos, prev_seq, hash, kind, call_id, decision, approver,
        approver_canonical, via, verified, key_id, reason, arguments_digest, at, agent, task_queue, body, written_at,
        ledger_id) VALUES ${marks(22)}`,
      [
        ...[w.workflowId, w.chainId, item.seq, body.pos, body.prevSeq, hash, 'entry', e.callId, e.decision, approver],
        ...[approver === null ? null : canonicalApprover(approver), e.via ?? null, e.verified ? 1 : null, null, null],
        ...[e.argumentsDigest ?? null, isoTime(e.decidedAt), w.agent, w.taskQueue, JSON.stringify(body)],
        ...[new Date().toISOString(), ledgerId],
      ],
    );
  }
  for (const t of folded.calls) {
    const v = callColumns(t, callRecord(t.trail, { workflowId: t.workflowId, agent: t.runAgent }));
    await db.run(
      `INSERT INTO ledger_calls (workflow_id, chain_id, call_id, task_queue, agent, tool, status, approvers,
        requested_at, decided_at, event_at, wait_ms, verified, path, reviewed_at, note, trail) VALUES ${marks(17)}`,
      v,
    );
    for (const a of JSON.parse(String(v[7])) as string[])
      await db.run(
        `INSERT INTO ledger_call_approvers (workflow_id, chain_id, call_id, approver_canonical, approver, event_at,
          status, tool, agent, task_queue, wait_ms) VALUES ${marks(11)}`,
        [t.workflowId, t.chainId, t.callId, canonicalApprover(a), a, v[10], v[6], v[5], v[4], v[3], v[11]],
      );
  }
  const end = folded.end;
  if (!folded.entries.length) return; // a run's pending calls alone: no record, no head
  await db.run(
    `INSERT INTO ledger_chains (workflow_id, chain_id, task_queue, last_seq, last_pos, last_hash) VALUES ${marks(6)}`,
    [w.workflowId, w.chainId, w.taskQueue, end.seq, end.pos, end.hash],
  );
}

/** Makes the ledger at `url` (a new SQLite file, or an empty PostgreSQL database) a schema 3 one holding `writes`. */
export async function schemaThreeLedger(url: string, writes: LedgerWrite[]): Promise<void> {
  const now = new Date().toISOString();
  if (!/^postgres(ql)?:\/\//.test(url)) {
    const sqlite = new DatabaseSync(url);
    const db: SchemaRunner = {
      all: async (sql, params = []) =>
        sqlite.prepare(sql).all(...(params as never[])) as Array<Record<string, unknown>>,
      run: async (sql, params = []) => void sqlite.prepare(sql).run(...(params as never[])),
    };
    try {
      sqlite.exec('BEGIN');
      const { id } = await migrate(db, 'sqlite', now, 3);
      for (const w of writes) await writeOld(db, w, id);
      sqlite.exec('COMMIT');
    } finally {
      sqlite.close();
    }
    return;
  }
  const client = new pg.Client(url);
  await client.connect();
  const db: SchemaRunner = {
    all: async (sql, params = []) => (await client.query(numbered(sql), params)).rows as Array<Record<string, unknown>>,
    run: async (sql, params = []) => void (await client.query(numbered(sql), params)),
  };
  try {
    await client.query('BEGIN');
    const { id } = await migrate(db, 'postgres', now, 3);
    for (const w of writes) await writeOld(db, w, id);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}
