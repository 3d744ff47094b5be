// The deciding commands of `countersign`: approve, reject (signed with --key), extend, input, provide-result,
// resolve (a call that may or may not have run), add-input. All go through the
// validating `decide` update, so the answer is synchronous: applied (exit 0) or refused in one line (exit 1). A run no
// worker serves cannot answer: its decisions are kept in its history for the worker that comes back, and each
// says so (client/run/keptDecisions.ts); --all and --key, which need the run's pending calls, are refused then.
import { jsonObjectOption } from './jsonOptions';
import type { Command } from 'commander';
import type { Decision } from '../contract/messages';
import type { YesNo } from '../contract/decisionWords';
import { type Connect } from './cliConnection';
import { lazy } from './lazyLoads';
import { dim, green, print, printJson, printProblem, red } from './terminalOutput';
import { CountersignError, NoWorkerError } from '../client/errors';
import { decidingAs, defaultApprover } from '../client/approvals/approver';
import type { DecisionBuilding } from '../client/approvals/decisionBuilder';
import { sameApprover } from '../contract/approverName';
import { quorumText } from '../core/approvals/decisionText';
import { unknownCallProblem } from '../core/approvals/decisionRules';

export function addDecisionCommands(program: Command, connect: Connect): void {
  // ── approve / reject ───────────────────────────────────────────────────────────────────────────────────────
  async function decideCommand(
    kind: YesNo,
    workflowId: string,
    callId: string | undefined,
    o: {
      all?: boolean;
      always?: boolean;
      as?: string;
      reason?: string;
      message?: string;
      edit?: string;
      key?: string;
      json?: boolean;
    },
  ) {
    if (!callId && !o.all)
      throw new CountersignError(`name a call id or pass --all (see: countersign show ${workflowId})`);
    if (callId && o.all) throw new CountersignError('pass a call id or --all, not both');
    if (o.edit !== undefined && !callId) throw new CountersignError('--edit applies to one call: name its call id');
    let editedArguments: Record<string, unknown> | undefined;
    if (o.edit !== undefined) {
      try {
        editedArguments = JSON.parse(o.edit) as Record<string, unknown>;
      } catch {
        throw new CountersignError(`--edit must be a JSON object of arguments, e.g. '{"to":"bob@example.com"}'`);
      }
      if (!editedArguments || typeof editedArguments !== 'object' || Array.isArray(editedArguments))
        throw new CountersignError('--edit must be a JSON object of arguments');
    }
    const key = o.key !== undefined ? lazy.decisionSigning().readPrivateKey(o.key) : undefined;
    if (key && o.as !== undefined && !sameApprover(o.as, key.kid))
      throw new CountersignError(
        `--as ${o.as} contradicts --key: a signed decision is by the key's approver (${key.kid}); drop --as`,
      );
    const { runner, config } = await connect();
    // Signing needs each call's arguments exactly as the run shows them; an unsigned name is checked against the
    // call's approvers and who approved it so far (a look-alike of theirs is refused before anything is sent). A run
    // no worker answers cannot show them: --key and --all are refused, and the decision is told what comes of it.
    const approver = key ? undefined : (o.as ?? defaultApprover());
    // What this read learns is handed on: the decision is not preceded by a second look at the worker.
    let served: 'answered' | NoWorkerError | undefined = 'answered';
    const pending =
      o.all || key
        ? await runner.pending(workflowId).catch(refuseUnserved(workflowId, o.all))
        : await runner.pending(workflowId).catch((err: unknown) => {
            served = err instanceof NoWorkerError ? err : undefined; // otherwise decideOrKeep asks the run itself
            return [];
          });
    const ids = callId ? [callId] : o.all ? pending.map((p) => p.callId) : [];
    if (ids.length === 0) throw new CountersignError(`run ${workflowId} has no pending approvals`);
    const decisions: Decision[] = ids.map((id) => {
      const call = pending.find((p) => p.callId === id);
      if (approver !== undefined) {
        const known = [...(call?.approvers ?? []), ...(call?.quorum?.approvedBy ?? [])];
        decidingAs(approver, { known, mixedScripts: config?.mixedScriptNames ?? false });
      }
      if (key && !call)
        throw new CountersignError(
          unknownCallProblem(
            id,
            pending.map((p) => p.callId),
            workflowId,
          ),
        );
      return decision(
        {
          callId: id,
          decision: kind,
          ...(o.always ? { always: true } : {}),
          ...(key ? {} : asApprover(o.as)),
          ...(o.reason ? { reason: o.reason } : {}),
          ...(o.message ? { message: o.message } : {}),
          ...(editedArguments ? { editedArguments } : {}),
        },
        key && call ? { sign: { key, workflowId, call } } : {},
      );
    });
    await send(workflowId, decisions, o.json, [], served);
  }

  /** A person's words as the contract's Decision: checked in one place (client/approvals/decisionBuilder.ts), signed with a key. */
  const decision = (words: Decision, building?: DecisionBuilding): Decision =>
    lazy.decisionBuilder().buildDecision(words, building);

  /** Sends decisions through the decide update and says what was applied (or, with no worker, what was kept). */
  async function send(
    workflowId: string,
    decisions: Decision[],
    json?: boolean,
    inputs: string[] = [],
    served?: 'answered' | NoWorkerError,
  ): Promise<void> {
    const { client } = await connect();
    const sent = await lazy.keptDecisions().decideOrKeep(client, workflowId, decisions, inputs, served);
    if ('kept' in sent) {
      printProblem(sent.down.message);
      if (json) return printJson({ kept: sent.kept, ...(inputs.length ? { inputsKept: inputs.length } : {}) });
      for (const k of sent.kept) print(lazy.keptDecisions().keptLine(workflowId, sent.down.taskQueue, k));
      if (inputs.length)
        print(
          `the message is kept in run ${workflowId}'s history, not queued yet: the worker takes it when one runs on task queue "${sent.down.taskQueue}" again`,
        );
      return;
    }
    const result = sent.applied;
    if (inputs.length && !decisions.length) {
      if (json) return printJson(result);
      return print(`queued for the next turn (${result.inputsQueued ?? 1} waiting)`);
    }
    if (json) return printJson(result);
    for (const a of result.applied) {
      const detail = a.quorum ? ` (${quorumText(a.quorum)})` : a.expiresAt ? ` (now expires ${a.expiresAt})` : '';
      print(
        `${a.outcome === 'rejected' || a.outcome === 'auto_rejected' ? red(a.outcome) : green(a.outcome)} ${a.toolName} (call ${a.callId})${a.approver ? ` as ${a.approver}` : ''}${a.verified ? ' (signed)' : ''}${detail}`,
      );
    }
    if (result.stillPending.length) print(dim(`still pending: ${result.stillPending.join(', ')}`));
  }

  /** With no worker, the pending calls --all and --key need cannot be read: refused, nothing sent. */
  const refuseUnserved =
    (workflowId: string, all?: boolean) =>
    (err: unknown): never => {
      if (!(err instanceof NoWorkerError)) throw err;
      const why = all
        ? `--all needs the run's pending calls, which only its worker can read: name each call id (countersign show ${workflowId} lists them)`
        : "--key signs the call's arguments as the run shows them, which only its worker can read: sign once the worker runs again";
      throw new CountersignError(`${err.message}; nothing was sent: ${why}`);
    };

  /** The approver for a decision: --as, else the OS user (the builder refuses a name the rule refuses, before anything is sent). */
  const asApprover = (as?: string) => {
    const approver = as ?? defaultApprover();
    return approver !== undefined ? { approver } : {};
  };

  program
    .command('approve')
    .description('approve a pending call (through the validating decide update)')
    .argument('<workflowId>')
    .argument('[callId]')
    .option('--all', 'every pending call of the run')
    .option('--always', 'also approve every later call of the same tool in this run')
    .option('--edit <json>', 'approve with these arguments instead (a JSON object, checked against the tool schema)')
    .option('--key <file>', 'sign the decision with this approver private key (<approver>.private.jwk)')
    .option('--as <name>', 'approver name (default: your OS user)')
    .option('--reason <text>', 'why, for the audit log')
    .option('--json', 'machine-readable output')
    .action((workflowId: string, callId: string | undefined, o) => decideCommand('approve', workflowId, callId, o));

  program
    .command('reject')
    .description('reject a pending call; the tool never runs and the model gets the message')
    .argument('<workflowId>')
    .argument('[callId]')
    .option('--all', 'every pending call of the run')
    .option('--message <text>', 'what the model is told')
    .option('--always', 'also reject every later call of the same tool in this run')
    .option('--key <file>', 'sign the decision with this approver private key (<approver>.private.jwk)')
    .option('--as <name>', 'approver name (default: your OS user)')
    .option('--reason <text>', 'why, for the audit log')
    .option('--json', 'machine-readable output')
    .action((workflowId: string, callId: string | undefined, o) => decideCommand('reject', workflowId, callId, o));

  program
    .command('input')
    .description('fill in the fields an input call waits for (provideInput); the call then runs')
    .argument('<workflowId>')
    .argument('<callId>')
    .requiredOption('--values <json>', 'a JSON object of field values, e.g. \'{"time":"10:00"}\'')
    .option('--as <name>', 'who provides it (default: your OS user)')
    .option('--json', 'machine-readable output')
    .action(async (workflowId: string, callId: string, o: { values: string; as?: string; json?: boolean }) => {
      const values = jsonObjectOption('--values', o.values, `'{"time":"10:00"}'`, '--values must be a JSON object');
      await send(workflowId, [decision({ callId, decision: 'input', values, ...asApprover(o.as) })], o.json);
    });

  program
    .command('provide-result')
    .description("deliver an external call's result (or failure); the model gets it as the call's output")
    .argument('<workflowId>')
    .argument('<callId>')
    .option('--result <text>', 'the result (text, or JSON)')
    .option('--error <text>', 'the call failed: what went wrong')
    .option('--as <name>', 'who delivers it (default: your OS user)')
    .option('--json', 'machine-readable output')
    .action(
      async (
        workflowId: string,
        callId: string,
        o: { result?: string; error?: string; as?: string; json?: boolean },
      ) => {
        if ((o.result === undefined) === (o.error === undefined))
          throw new CountersignError('pass exactly one of --result or --error');
        const outcome = o.error !== undefined ? { error: o.error } : { result: o.result as string };
        await send(workflowId, [decision({ callId, decision: 'result', ...outcome, ...asApprover(o.as) })], o.json);
      },
    );

  program
    .command('resolve')
    .description('answer a call that may or may not have run (uncertain): run it again, or say what came of it')
    .argument('<workflowId>')
    .argument('<callId>')
    .option('--retry', 'run it again (it did not run, or running it twice is fine)')
    .option('--done <result>', 'it ran: the result the model gets')
    .option('--failed <error>', 'it did not run, or failed: the error the model gets')
    .option('--as <name>', 'who answers (default: your OS user)')
    .option('--reason <text>', 'why, for the audit log')
    .option('--json', 'machine-readable output')
    .action(
      async (
        workflowId: string,
        callId: string,
        o: { retry?: boolean; done?: string; failed?: string; as?: string; reason?: string; json?: boolean },
      ) => {
        const given = [
          o.retry ? 'retry' : undefined,
          o.done !== undefined ? 'done' : undefined,
          o.failed !== undefined ? 'failed' : undefined,
        ].filter(Boolean);
        if (given.length !== 1)
          throw new CountersignError('pass exactly one of --retry, --done <result> or --failed <error>');
        const answer = o.retry
          ? { decision: 'retry' as const }
          : o.done !== undefined
            ? { decision: 'done' as const, result: o.done }
            : { decision: 'failed' as const, error: o.failed! };
        await send(
          workflowId,
          [decision({ callId, ...answer, ...asApprover(o.as), ...(o.reason ? { reason: o.reason } : {}) })],
          o.json,
        );
      },
    );

  program
    .command('extend')
    .description("give a pending call more time before it expires (within its tool's maxExtension)")
    .argument('<workflowId>')
    .argument('<callId>')
    .requiredOption('--by <duration>', 'how much longer, e.g. 4h')
    .option('--as <name>', 'approver name (default: your OS user)')
    .option('--reason <text>', 'why, for the audit log')
    .option('--json', 'machine-readable output')
    .action(
      async (workflowId: string, callId: string, o: { by: string; as?: string; reason?: string; json?: boolean }) => {
        await send(
          workflowId,
          [
            decision({
              callId,
              decision: 'extend',
              by: o.by,
              ...asApprover(o.as),
              ...(o.reason ? { reason: o.reason } : {}),
            }),
          ],
          o.json,
        );
      },
    );

  program
    .command('add-input')
    .description('add a user message to a run; the model gets it on its next turn')
    .argument('<workflowId>')
    .argument('<message>')
    .option('--json', 'machine-readable output')
    .action(async (workflowId: string, message: string, o: { json?: boolean }) => {
      await send(workflowId, [], o.json, [message]); // an unknown run: a clear error
    });
}
