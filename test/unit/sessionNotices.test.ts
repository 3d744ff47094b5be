// The upstreams' notifications and the gateway's sessions (gateway/sessionNotices.ts), with the MCP SDK's real
// Server and Client over its in-memory transport for each session, and a stand-in upstream that counts what it is
// asked: log messages at each session's level, resource updates to the sessions that subscribed, list changes to
// all, and an upstream subscription that ends with its last session's.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type LoggingLevel,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { MAX_SUBSCRIPTIONS, SessionNotices } from '../../gateway/sessionNotices';
import type { Upstreams } from '../../gateway/upstreams';

const asked: string[] = [];
const upstreamClient = {
  getServerCapabilities: () => ({ logging: {} }),
  setLoggingLevel: async (level: LoggingLevel) => void asked.push(`level ${level}`),
  subscribeResource: async ({ uri }: { uri: string }) => void asked.push(`subscribe ${uri}`),
  unsubscribeResource: async ({ uri }: { uri: string }) => void asked.push(`unsubscribe ${uri}`),
};
const upstreams = {
  servers: new Map([['up', { client: upstreamClient }]]),
  server: () => ({ client: upstreamClient }),
} as unknown as Upstreams;

interface Heard {
  server: Server;
  client: Client;
  logs: LoggingLevel[];
  updates: string[];
  changes: number;
}

async function session(notices: SessionNotices): Promise<Heard> {
  const server = new Server(
    { name: 'gateway', version: '1' },
    { capabilities: { logging: {}, resources: { subscribe: true }, prompts: { listChanged: true } } },
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  notices.open(server);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(a);
  const heard: Heard = { server, client, logs: [], updates: [], changes: 0 };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void heard.logs.push(n.params.level));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.updates.push(n.params.uri));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void heard.changes++);
  return heard;
}

const settle = () => new Promise((r) => setTimeout(r, 50));
const log = (level: LoggingLevel) => ({ method: 'notifications/message', params: { level, data: level } });

beforeEach(() => void asked.splice(0));

test('log messages reach each session at or above its level; the upstream is as verbose as the most verbose', async () => {
  const notices = new SessionNotices();
  const [all, errors, unset] = [await session(notices), await session(notices), await session(notices)];
  await notices.setLevel(all.server, 'debug', upstreams);
  await notices.setLevel(errors.server, 'error', upstreams);
  expect(asked).toEqual(['level debug', 'level debug']);
  for (const level of ['debug', 'warning', 'error', 'emergency'] as const) notices.deliver('up', log(level));
  await settle();
  expect(all.logs).toEqual(['debug', 'warning', 'error', 'emergency']);
  expect(errors.logs).toEqual(['error', 'emergency']);
  expect(unset.logs).toEqual(['debug', 'warning', 'error', 'emergency']); // no level set: it hears them all
  await notices.close(all.server, upstreams); // the most verbose left: error
  expect(asked.at(-1)).toBe('level error');
});

test('a resource update reaches the sessions subscribed to it; the upstream unsubscribes with the last of them', async () => {
  const notices = new SessionNotices();
  const [a, b, c] = [await session(notices), await session(notices), await session(notices)];
  await notices.subscribe(a.server, 'r://1', 'up', upstreams);
  await notices.subscribe(b.server, 'r://1', 'up', upstreams);
  notices.deliver('up', { method: 'notifications/resources/updated', params: { uri: 'r://1' } });
  notices.deliver('up', { method: 'notifications/resources/updated', params: { uri: 'r://2' } });
  notices.deliver('other', { method: 'notifications/resources/updated', params: { uri: 'r://1' } }); // not where it was subscribed
  await settle();
  expect([a.updates, b.updates, c.updates]).toEqual([['r://1'], ['r://1'], []]);
  await notices.unsubscribe(a.server, 'r://1', 'up', upstreams);
  expect(asked).toEqual(['subscribe r://1', 'subscribe r://1']); // b still watches it
  await notices.close(b.server, upstreams);
  expect(asked.at(-1)).toBe('unsubscribe r://1');
  notices.deliver('up', { method: 'notifications/resources/updated', params: { uri: 'r://1' } });
  await settle();
  expect(a.updates).toEqual(['r://1']);
});

test('list changes reach every session; a closed one is skipped; a session watches a bounded number of resources', async () => {
  const notices = new SessionNotices();
  const [a, b] = [await session(notices), await session(notices)];
  await b.client.close();
  notices.deliver('up', { method: 'notifications/prompts/list_changed' });
  notices.deliver('up', { method: 'notifications/tools/list_changed' }); // the gateway's tools are fixed at start
  await settle();
  expect([a.changes, b.changes]).toEqual([1, 0]);
  for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) await notices.subscribe(a.server, `r://${i}`, 'up', upstreams);
  await expect(notices.subscribe(a.server, 'r://one-more', 'up', upstreams)).rejects.toThrow(
    /watches 1000 resources already: unsubscribe from one first/,
  );
});
