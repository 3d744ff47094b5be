// Slack's request signing, as Slack documents it: `X-Slack-Signature: v0=<hex HMAC-SHA256>` over
// `v0:{X-Slack-Request-Timestamp}:{raw body}` with the app's signing secret. A timestamp more than 5 minutes from
// now is refused (a captured request cannot be replayed later), and the comparison takes constant time.
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { sameSecret } from '../../links/sameSecret';

/** How far the request's timestamp may be from the server's clock. */
export const SLACK_MAX_SKEW_SECONDS = 5 * 60;

/** What Slack would send for this body at this time: the tests sign with it too. */
export function slackSignature(signingSecret: string, timestamp: string, rawBody: Buffer | string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
}

/** Why the request is not Slack's, in one line (never naming the secret); undefined when it is. */
export function slackRequestProblem(
  signingSecret: string,
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  nowSeconds = Math.floor(Date.now() / 1000),
): string | undefined {
  const timestamp = headers['x-slack-request-timestamp'];
  const signature = headers['x-slack-signature'];
  if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp))
    return 'not a Slack request: X-Slack-Request-Timestamp is missing or not a number';
  if (Math.abs(nowSeconds - Number(timestamp)) > SLACK_MAX_SKEW_SECONDS)
    return 'refused: the request timestamp is more than 5 minutes from now (a replayed request, or a clock off)';
  if (typeof signature !== 'string' || !/^v0=[0-9a-f]{64}$/.test(signature))
    return 'not a Slack request: X-Slack-Signature is missing or malformed';
  return sameSecret(signature, slackSignature(signingSecret, timestamp, rawBody))
    ? undefined
    : 'not a Slack request: the signature does not match (another signing secret, or a changed body)';
}
