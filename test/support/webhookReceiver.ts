// A loopback webhook that records what Countersign posts, and can fail the first N posts to prove retries.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Notification } from '../../activities/notify';

export interface WebhookReceiver {
  url: string;
  received: Notification[];
  /** Answer 503 to this many posts before accepting. */
  failNext: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = { url: '', received: [], failNext: 0, close: async () => undefined };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (receiver.failNext > 0) {
        receiver.failNext -= 1;
        res.writeHead(503).end('try later');
        return;
      }
      receiver.received.push(JSON.parse(body) as Notification);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => new Promise((r) => server.close(() => r()));
  return receiver;
}
