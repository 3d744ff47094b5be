// What the upstreams tell the gateway outside an answer, passed on to the MCP sessions it concerns (issue 47, point
// 3). The gateway holds one connection per upstream for all its sessions, and the MCP client SDK does not say with
// which request a notification came, so:
// - a log message goes to every open session whose level (logging/setLevel) admits it, as the SDK's server filters
//   for a session; the upstreams are set to the most verbose level an open session asked for;
// - resources/updated goes to the sessions that subscribed to that resource through the gateway; the upstream
//   subscription ends when the last of them unsubscribes or closes;
// - resources and prompts list_changed go to every session (the gateway lists them afresh on each request). Its tools
//   are listed once at start, so tools/list_changed is not passed on.
// (An ungated call's progress is that call's own: gatewayServer.ts.) A notification goes out on the session's
// standing stream (Streamable HTTP's GET) or not at all: nothing is queued for a session that has none.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  type LoggingLevel,
  LoggingLevelSchema,
  McpError,
  type Notification,
} from '@modelcontextprotocol/sdk/types.js';
import type { Upstreams } from './upstreams';

/** Resources one session may watch at once. */
export const MAX_SUBSCRIPTIONS = 1_000;
const SEVERITY = LoggingLevelSchema.options; // debug … emergency
const LIST_CHANGED = ['notifications/resources/list_changed', 'notifications/prompts/list_changed'];

interface Session {
  level?: LoggingLevel;
  /** Resource URI → the upstream it was subscribed at. */
  watching: Map<string, string>;
}

export class SessionNotices {
  private readonly sessions = new Map<Server, Session>();
  /** The level the upstreams were last set to. */
  private upstreamLevel?: LoggingLevel;

  open(server: Server): void {
    this.sessions.set(server, { watching: new Map() });
  }

  /** The session is gone: the resources no other session watches are unsubscribed, the upstreams' level reset. */
  async close(server: Server, upstreams: Upstreams): Promise<void> {
    const session = this.sessions.get(server);
    if (!session) return;
    this.sessions.delete(server);
    for (const [uri, upstream] of session.watching)
      if (!this.watched(uri, upstream))
        await upstreams
          .server(upstream)
          .client.unsubscribeResource({ uri })
          .catch(() => undefined);
    if (session.level) await this.setUpstreamLevel(upstreams);
  }

  /** logging/setLevel from one session: its own filter, and the upstreams as verbose as any session asked. */
  async setLevel(server: Server, level: LoggingLevel, upstreams: Upstreams): Promise<void> {
    const session = this.sessions.get(server);
    if (session) session.level = level;
    await this.setUpstreamLevel(upstreams, true);
  }

  /** resources/subscribe from one session, at the upstream that has the resource. */
  async subscribe(server: Server, uri: string, upstream: string, upstreams: Upstreams): Promise<void> {
    const session = this.sessions.get(server);
    if (session && !session.watching.has(uri) && session.watching.size >= MAX_SUBSCRIPTIONS)
      throw new McpError(
        ErrorCode.InvalidParams,
        `this session watches ${MAX_SUBSCRIPTIONS} resources already: unsubscribe from one first`,
      );
    await upstreams.server(upstream).client.subscribeResource({ uri });
    session?.watching.set(uri, upstream);
  }

  /** resources/unsubscribe from one session: the upstream's subscription ends with the last session's. */
  async unsubscribe(server: Server, uri: string, upstream: string, upstreams: Upstreams): Promise<void> {
    this.sessions.get(server)?.watching.delete(uri);
    if (!this.watched(uri, upstream)) await upstreams.server(upstream).client.unsubscribeResource({ uri });
  }

  /** A notification from an upstream, to the sessions it concerns. */
  deliver(upstream: string, n: Notification): void {
    const to = (server: Server) => void server.notification(n as never).catch(() => undefined); // closed, or no stream
    if (n.method === 'notifications/message') {
      const level = (n.params as { level?: LoggingLevel } | undefined)?.level;
      for (const [server, s] of this.sessions)
        if (!level || !s.level || SEVERITY.indexOf(level) >= SEVERITY.indexOf(s.level)) to(server);
    } else if (n.method === 'notifications/resources/updated') {
      const uri = (n.params as { uri?: unknown } | undefined)?.uri;
      for (const [server, s] of this.sessions)
        if (typeof uri === 'string' && s.watching.get(uri) === upstream) to(server);
    } else if (LIST_CHANGED.includes(n.method)) for (const server of this.sessions.keys()) to(server);
  }

  private watched(uri: string, upstream: string): boolean {
    return [...this.sessions.values()].some((s) => s.watching.get(uri) === upstream);
  }

  /** The upstreams at the most verbose level an open session asked for (none asked: left as they are). */
  private async setUpstreamLevel(upstreams: Upstreams, always = false): Promise<void> {
    const asked = [...this.sessions.values()].map((s) => s.level).filter((l) => l !== undefined);
    if (!asked.length) return;
    const level = SEVERITY[Math.min(...asked.map((l) => SEVERITY.indexOf(l)))]!;
    if (level === this.upstreamLevel && !always) return;
    this.upstreamLevel = level;
    await Promise.all(
      [...upstreams.servers.values()]
        .filter((u) => u.client.getServerCapabilities()?.logging)
        .map((u) => u.client.setLoggingLevel(level)),
    );
  }
}
