// Deciding inside Slack: the Approve / Reject buttons of an `approval_requested` message post to
// `POST /slack/actions`. A request counts only when Slack signed it (slackSignature.ts) and its user is mapped to an
// approver (COUNTERSIGN_SLACK_USERS). A button's value is a link token (links/actionLinks.ts): one run, one call,
// one action, the call's arguments, an expiry and a single-use id, decided as a link is (the validating `decide`
// update, signed with the approver's key if the server holds one). Slack gets its acknowledgment at once; the
// answer (the message updated, or a refusal only the clicker sees) goes to the payload's response_url, as Slack
// documents for block_actions.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { linkMismatch, readLinkToken } from '../../links/actionLinks';
import { CountersignError } from '../../client/errors';
import { internalErrorMessage } from '../internalErrors';
import { DecisionProblem } from './deciding';
import type { InboxContext } from './inboxServer';
import { ownRun } from './runScope';
import { slackRequestProblem } from './slackSignature';
import { type YesNo, outcomeOf } from '../../contract/decisionWords';
import { readSlackUsers } from './slackUsers';
import type { NamesKnown } from '../../contract/approverName';

export const SLACK_ACTIONS_PATH = '/slack/actions';

export interface SlackOptions {
  /** COUNTERSIGN_SLACK_SIGNING_SECRET: without it there is no /slack/actions. */
  signingSecret?: string;
  /** COUNTERSIGN_SLACK_USERS: the JSON file mapping Slack user ids to approvers. */
  usersFile?: string;
}

export interface SlackSettings {
  signingSecret: string;
  users: Map<string, string>;
  linkSecret: string;
}

/** The settings the route needs, or undefined without a signing secret; a one-line Error when they cannot work. */
export function slackSettingsOf(
  o: SlackOptions | undefined,
  linkSecret: string | undefined,
  names: Pick<NamesKnown, 'mixedScripts'> = {},
): SlackSettings | undefined {
  if (!o?.signingSecret) {
    if (o?.usersFile)
      throw new Error(
        'COUNTERSIGN_SLACK_USERS is set but COUNTERSIGN_SLACK_SIGNING_SECRET is not: set your Slack app’s signing secret to take its buttons',
      );
    return undefined;
  }
  if (!o.usersFile)
    throw new Error(
      'COUNTERSIGN_SLACK_SIGNING_SECRET is set but COUNTERSIGN_SLACK_USERS is not: point it at a JSON file such as { "U0123ABC": "ann" }',
    );
  if (!linkSecret)
    throw new Error(
      'COUNTERSIGN_SLACK_SIGNING_SECRET is set but COUNTERSIGN_LINK_SECRET is not: Slack’s buttons carry link tokens; set the same secret as the workers’',
    );
  return { signingSecret: o.signingSecret, users: readSlackUsers(o.usersFile, names), linkSecret };
}

const payloadSchema = z.looseObject({
  type: z.string(),
  user: z.looseObject({ id: z.string() }).optional(),
  actions: z.array(z.looseObject({ action_id: z.string(), value: z.string().optional() })).optional(),
  response_url: z.url({ protocol: /^https?$/ }).optional(),
  message: z.looseObject({ blocks: z.array(z.unknown()).optional() }).optional(),
});
type SlackPayload = z.infer<typeof payloadSchema>;
type SlackAnswer = Record<string, unknown>;

const ACTIONS: Record<string, YesNo> = { countersign_approve: 'approve', countersign_reject: 'reject' };

export async function addSlackRoutes(
  app: FastifyInstance,
  ctx: InboxContext,
  slack: SlackSettings,
  bodyLimit: number,
): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  app.addHook('onClose', async () => void (await Promise.allSettled([...inFlight])));

  await app.register(async (scope) => {
    // Slack signs the raw bytes: this route alone keeps them (@fastify/formbody parses forms everywhere else).
    scope.removeContentTypeParser('application/x-www-form-urlencoded');
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'buffer', bodyLimit },
      (_req, body, done) => done(null, body),
    );
    scope.post(SLACK_ACTIONS_PATH, async (req, reply) => {
      if (!Buffer.isBuffer(req.body))
        return reply
          .code(400)
          .send({ error: 'not a Slack request: the body must be application/x-www-form-urlencoded' });
      const problem = slackRequestProblem(slack.signingSecret, req.headers, req.body);
      if (problem) return reply.code(401).send({ error: problem });
      let payload: SlackPayload;
      try {
        payload = payloadSchema.parse(JSON.parse(new URLSearchParams(req.body.toString('utf8')).get('payload') ?? ''));
      } catch {
        return reply.code(400).send({ error: 'the body carries no payload= JSON that Slack would send' });
      }
      const action =
        payload.type === 'block_actions' ? payload.actions?.find((a) => a.action_id in ACTIONS) : undefined;
      // Anything else (the View run link button, other interactions) needs only the acknowledgment.
      if (!action) return reply.code(200).send();
      const work: Promise<void> = answer(ctx, slack, payload, action, req)
        .then((message) => respond(payload.response_url, message))
        .catch(() => undefined)
        .finally(() => inFlight.delete(work));
      inFlight.add(work);
      return reply.code(200).send();
    });
  });
}

const refusal = (why: string): SlackAnswer => ({
  response_type: 'ephemeral',
  replace_original: false,
  text: `Nothing was decided: ${why}`,
});

/** Decides what the button says as the mapped approver; the answer for Slack either way. */
async function answer(
  ctx: InboxContext,
  slack: SlackSettings,
  payload: SlackPayload,
  action: { action_id: string; value?: string },
  req: FastifyRequest,
): Promise<SlackAnswer> {
  const userId = payload.user?.id ?? '';
  const approver = slack.users.get(userId);
  if (!approver)
    return refusal(
      `Slack user ${userId.slice(0, 40) || '(none)'} is not mapped to an approver (COUNTERSIGN_SLACK_USERS).`,
    );
  const read = readLinkToken(slack.linkSecret, action.value ?? '');
  if ('problem' in read) return refusal(read.problem);
  const { claims } = read;
  const act = ACTIONS[action.action_id]!;
  if (claims.act !== act) return refusal(`this button's value is for ${claims.act}, not ${act}.`);
  try {
    await ownRun(ctx.runner, claims.wf); // a run of another task queue is refused as an unknown one
    const pending = await ctx.runner.pending(claims.wf).catch(() => []);
    const call = pending.find((p) => p.callId === claims.call);
    if (!call) return refusal(`call ${claims.call} no longer waits for a decision (it was decided, or its run ended).`);
    const mismatch = linkMismatch(claims, call);
    if (mismatch === 'arguments')
      return refusal(
        `call ${claims.call} now has other arguments than this message was made for: open it from the inbox.`,
      );
    if (mismatch === 'target')
      return refusal(`what call ${claims.call} acts on changed after this message was made: open it from the inbox.`);
    const seen = call.fingerprint !== undefined ? { fingerprint: call.fingerprint } : {}; // the run refuses it if the target changed meanwhile
    const a = (
      await ctx.decider.decide(
        claims.wf,
        [{ callId: claims.call, decision: act, linkId: claims.id, ...seen }],
        approver,
      )
    ).applied[0]!;
    const counted = a.outcome === 'approval_counted';
    const said = counted
      ? `approval by ${approver} counted (${a.quorum?.approvedBy.length ?? 1} of ${a.quorum?.needed ?? '?'})`
      : `${outcomeOf(act)} by ${approver}`;
    // The used button goes; on a counted approval the confirmation-page links stay for the other approvers.
    const kept = (payload.message?.blocks ?? []).filter((b) => {
      const id = (b as { block_id?: unknown }).block_id;
      return id !== 'countersign_actions' && (counted || id !== 'countersign_links');
    });
    return {
      replace_original: true,
      text: `${a.toolName} (call ${a.callId}): ${said}`,
      blocks: [...kept, { type: 'context', elements: [{ type: 'mrkdwn', text: `*${said}*` }] }],
    };
  } catch (err) {
    if (err instanceof DecisionProblem || err instanceof CountersignError) return refusal(err.message);
    req.log.error({ err }, 'internal error'); // the details stay in the server's log, under the id the clicker sees
    return refusal(
      `the decision could not be sent (${internalErrorMessage(req.id)}): try again, or decide from the inbox.`,
    );
  }
}

/** POSTs the answer to Slack's response_url; a failure there changes nothing already decided. */
async function respond(responseUrl: string | undefined, message: SlackAnswer): Promise<void> {
  if (!responseUrl) return;
  await fetch(responseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(10_000),
  }).catch(() => undefined);
}
