// Slack's side of an interactive message, for tests: a stand-in for the response_url Slack gives each click (it
// records what the server answers there, per URL), and a button click as Slack posts it (form-encoded `payload=`,
// signed over the raw body with the signing secret).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { slackSignature } from '../../servers/inbox/slackSignature';

export type SlackAnswer = {
  replace_original?: boolean;
  response_type?: string;
  text: string;
  blocks?: Array<{ type: string; block_id?: string; elements?: Array<{ text?: string }> }>;
};

export interface SlackSide {
  url: string;
  answers: Map<string, SlackAnswer>;
  close(): void;
}

export async function startResponseUrls(): Promise<SlackSide> {
  const answers = new Map<string, SlackAnswer>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      answers.set(req.url!, JSON.parse(body) as SlackAnswer);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, answers, close: () => server.close() };
}

/** A block_actions click on the button `actionId` carrying `value`, by Slack user `user`, answered at `responseUrl`. */
export function slackClick(o: {
  secret: string;
  responseUrl: string;
  blocks: unknown[];
  actionId: string;
  value: string;
  user: string;
  ageSeconds?: number;
}) {
  const payload = {
    type: 'block_actions',
    user: { id: o.user, username: o.user.toLowerCase() },
    team: { id: 'T0TEAM' },
    response_url: o.responseUrl,
    trigger_id: '1.2.3',
    message: { type: 'message', text: 'x', blocks: o.blocks },
    actions: [
      { type: 'button', action_id: o.actionId, block_id: 'countersign_actions', value: o.value, action_ts: '1.0' },
    ],
  };
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const timestamp = String(Math.floor(Date.now() / 1000) - (o.ageSeconds ?? 0));
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': slackSignature(o.secret, timestamp, body),
  };
  return { responseUrl: o.responseUrl, body, headers, path: new URL(o.responseUrl).pathname };
}
