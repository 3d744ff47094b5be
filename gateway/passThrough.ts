// What the gateway passes through unchanged to its upstreams (issue 47, point 3): resources, resource templates,
// subscriptions, prompts, completions and the logging level. Lists are the upstreams' lists joined (every page of
// each, in config order); a request about one item goes to the upstream that listed it, or to the only one.
// Subscriptions and levels are each session's own (sessionNotices.ts), as are the notifications that follow them.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Upstream, Upstreams } from './upstreams';
import type { SessionNotices } from './sessionNotices';

type Capability = 'resources' | 'prompts' | 'completions' | 'logging';

const having = (upstreams: Upstreams, capability: Capability): Upstream[] =>
  [...upstreams.servers.values()].filter((u) => u.client.getServerCapabilities()?.[capability]);

/** The capabilities the gateway declares for what it passes through: those at least one upstream has. */
export function passThroughCapabilities(upstreams: Upstreams): Record<string, object> {
  const caps: Record<string, object> = {};
  const any = (c: 'resources' | 'prompts', flag: 'subscribe' | 'listChanged') =>
    having(upstreams, c).some((u) => (u.client.getServerCapabilities()?.[c] as Record<string, unknown>)[flag] === true);
  for (const c of ['resources', 'prompts', 'completions', 'logging'] as const)
    if (having(upstreams, c).length) caps[c] = {};
  // Lists are read afresh on each request, so an upstream's list_changed is true of the gateway's too.
  if (caps.resources)
    caps.resources = { subscribe: any('resources', 'subscribe'), listChanged: any('resources', 'listChanged') };
  if (caps.prompts) caps.prompts = { listChanged: any('prompts', 'listChanged') };
  return caps;
}

/** Every page of one list, from one upstream. */
async function allPages<T>(list: (cursor?: string) => Promise<{ nextCursor?: string } & T>, key: keyof T) {
  const items: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    items.push(...(page[key] as unknown[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return items;
}

/**
 * The first upstream (of those with the capability) whose list holds `matches`; else the only one there is (a
 * server may answer for items it does not list: a resource it made since, one under a template); else an
 * InvalidParams error.
 */
async function owner(
  upstreams: Upstream[],
  list: (c: Client) => Promise<unknown[]>,
  matches: (item: unknown) => boolean,
  what: string,
): Promise<Upstream> {
  for (const u of upstreams) if ((await list(u.client).catch(() => [])).some(matches)) return u;
  if (upstreams.length === 1) return upstreams[0]!;
  throw new McpError(ErrorCode.InvalidParams, `${what} is not offered by any upstream of this gateway`);
}

export function passThrough(server: Server, upstreams: Upstreams, notices: SessionNotices): void {
  const resources = having(upstreams, 'resources');
  const prompts = having(upstreams, 'prompts');
  const listResources = (c: Client) => allPages((cursor) => c.listResources(cursor ? { cursor } : {}), 'resources');
  const listTemplates = (c: Client) =>
    allPages((cursor) => c.listResourceTemplates(cursor ? { cursor } : {}), 'resourceTemplates');
  const listPrompts = (c: Client) => allPages((cursor) => c.listPrompts(cursor ? { cursor } : {}), 'prompts');
  const uriOwner = async (uri: string) => {
    const listed = (r: unknown) => (r as { uri: string }).uri === uri;
    try {
      return await owner(resources, listResources, listed, `resource ${uri}`);
    } catch {
      // A templated resource is listed by no one: the upstream whose template's fixed start it has.
      const start = (t: unknown) => uri.startsWith((t as { uriTemplate: string }).uriTemplate.split('{')[0]!);
      return owner(resources, listTemplates, start, `resource ${uri}`);
    }
  };

  if (resources.length) {
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: (await Promise.all(resources.map((u) => listResources(u.client)))).flat() as never,
    }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: (await Promise.all(resources.map((u) => listTemplates(u.client)))).flat() as never,
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) =>
      (await uriOwner(req.params.uri)).client.readResource(req.params, { signal: extra.signal }),
    );
    server.setRequestHandler(SubscribeRequestSchema, async (req) => {
      const { uri } = req.params;
      await notices.subscribe(server, uri, (await uriOwner(uri)).name, upstreams);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
      const { uri } = req.params;
      await notices.unsubscribe(server, uri, (await uriOwner(uri)).name, upstreams);
      return {};
    });
  }
  if (prompts.length) {
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: (await Promise.all(prompts.map((u) => listPrompts(u.client)))).flat() as never,
    }));
    const named = (name: string) => (p: unknown) => (p as { name: string }).name === name;
    server.setRequestHandler(GetPromptRequestSchema, async (req, extra) =>
      (await owner(prompts, listPrompts, named(req.params.name), `prompt ${req.params.name}`)).client.getPrompt(
        req.params,
        { signal: extra.signal },
      ),
    );
  }
  const completing = having(upstreams, 'completions');
  if (completing.length)
    server.setRequestHandler(CompleteRequestSchema, async (req) => {
      const ref = req.params.ref;
      const u =
        ref.type === 'ref/prompt'
          ? await owner(completing, listPrompts, (p) => (p as { name: string }).name === ref.name, `prompt ${ref.name}`)
          : await owner(
              completing,
              listTemplates,
              (t) => (t as { uriTemplate: string }).uriTemplate === ref.uri,
              `resource template ${ref.uri}`,
            );
      return u.client.complete(req.params);
    });
  const logging = having(upstreams, 'logging');
  if (logging.length)
    server.setRequestHandler(SetLevelRequestSchema, async (req) => {
      await notices.setLevel(server, req.params.level, upstreams);
      return {};
    });
}
