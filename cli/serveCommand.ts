// `countersign serve`: the approvals inbox for the task queue of the global --task-queue (so `countersign serve
// --task-queue refunds` beside `npm start` shows the refunds queue's calls). With no identity source on loopback it
// is `npm start`'s inbox: a one-time sign-in link as the local user, on the next free port if 8234 is taken. Every
// setting that can stop it is checked before connecting.
import type { Command } from 'commander';
import { type Connect } from './cliConnection';
import { lazy } from './lazyLoads';
import { print, printProblem } from './terminalOutput';
import { CountersignError } from '../client/errors';
import type { CountersignConfig } from '../temporal.config';
import { isLoopback } from '../servers/httpGuards';

const DEFAULT_PORT = 8234;

interface ServeOptions {
  port?: number;
  host: string;
  approverHeader?: string;
  keysDir?: string;
  approverJwtHeader?: string;
  approverJwks?: string;
  approverClaim: string;
  approverAudience?: string;
  approverAudienceAny?: boolean;
  approverIssuer?: string;
}

export function addServeCommand(program: Command, connect: Connect, config: () => CountersignConfig): void {
  program
    .command('serve')
    .description(
      "the approvals inbox of the task queue (--task-queue) in the browser, its JSON API and one-click links (identity from COUNTERSIGN_SERVE_TOKENS, a verifying proxy's JWT, a same-host proxy's header, or else a one-time sign-in link on loopback)",
    )
    .option('--port <n>', `port (default ${DEFAULT_PORT}; with the sign-in link, any free one if it is taken)`, (v) =>
      Number(v),
    )
    .option(
      '--host <ip>',
      "address to listen on (not loopback: only with bearer tokens or a verifying proxy's JWT)",
      '127.0.0.1',
    )
    .option(
      '--approver-jwt-header <name>',
      "header holding your verifying proxy's signed identity assertion, e.g. Cf-Access-Jwt-Assertion, x-goog-iap-jwt-assertion",
    )
    .option('--approver-jwks <file-or-url>', "the proxy's public keys: a JWKS file or an https URL")
    .option('--approver-claim <claim>', 'the assertion claim naming the approver', 'email')
    .option('--approver-audience <aud>', 'the audience the assertion must be for (required with --approver-jwks)')
    .option(
      '--approver-audience-any',
      "accept assertions for any audience (instead of --approver-audience): any app behind your proxy's identity provider could then sign in here",
    )
    .option('--approver-issuer <iss>', 'the issuer the assertion must come from')
    .option(
      '--approver-header <name>',
      'header a reverse proxy on this host sets to the signed-in approver, e.g. X-Forwarded-User (loopback only; not with --keys-dir)',
    )
    .option(
      '--keys-dir <dir>',
      "approvers' private keys (<approver>.private.jwk) to sign their decisions with (needs bearer tokens or --approver-jwt-header)",
    )
    .action((o: ServeOptions) => serve(o, connect, config()));
}

async function serve(o: ServeOptions, connect: Connect, settings: CountersignConfig): Promise<void> {
  // a link secret shorter than 32 characters is a ConfigError
  const { serveTokens, linkSecret, slackSigningSecret, slackUsersFile, taskQueue, mixedScriptNames } = settings;
  const tokens = lazy.identity().parseServeTokens(serveTokens, { mixedScripts: mixedScriptNames });
  const slack = { signingSecret: slackSigningSecret, usersFile: slackUsersFile };
  lazy.slack().slackSettingsOf(slack, linkSecret, { mixedScripts: mixedScriptNames }); // a bad user mapping stops here, before connecting
  if (o.approverJwks && !o.approverJwtHeader)
    throw new CountersignError(
      '--approver-jwks needs --approver-jwt-header <name>: the header your proxy puts its signed assertion in',
    );
  const jwt = o.approverJwtHeader
    ? {
        header: o.approverJwtHeader,
        jwks: o.approverJwks ?? '',
        claim: o.approverClaim,
        audience: o.approverAudience,
        audienceAny: o.approverAudienceAny ?? false,
        issuer: o.approverIssuer,
        maxLifetimeMs: settings.approverJwtMaxLifetimeMs,
      }
    : undefined;
  if (jwt) lazy.jwt().jwtIdentity(jwt); // a missing audience or an unreadable key set stops here, before connecting
  if (jwt && !jwt.issuer?.trim())
    printProblem(
      `warning: no --approver-issuer: assertions from any issuer the key set verifies sign in here; pass --approver-issuer <iss> (Cloudflare Access: https://<team>.cloudflareaccess.com)`,
    );
  // No identity source at all, on loopback: the person at this machine, as `npm start` signs them in.
  const localSignIn =
    !tokens.length && !jwt && !o.approverHeader && !o.keysDir && isLoopback(o.host)
      ? {
          approver: lazy.signIn().localApprover(),
          printedBy: 'countersign serve',
          sessionTtlMs: settings.signInSessionTtlMs,
        }
      : undefined;
  const { runner } = await connect();
  const start = (port: number) =>
    lazy.inbox().startInbox({
      runner,
      port,
      host: o.host,
      approverHeader: o.approverHeader,
      tokens,
      approverJwt: jwt,
      keysDir: o.keysDir,
      linkSecret,
      slack,
      mixedScriptNames,
      ...(localSignIn ? { localSignIn } : {}),
    });
  const port = o.port ?? DEFAULT_PORT;
  const server = await start(port).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') throw err;
    if (localSignIn && o.port === undefined) return start(0); // npm start's inbox holds 8234: any free port will do
    throw new CountersignError(`port ${port} on ${o.host} is taken: pass --port <n> (0: any free port)`);
  });
  const sources = [
    jwt ? `signed assertion in ${jwt.header} (claim ${jwt.claim})` : '',
    o.approverHeader ? `header ${o.approverHeader}` : '',
    tokens.length ? `${tokens.length} bearer token(s)` : '',
    localSignIn
      ? `a one-time sign-in link as ${localSignIn.approver}, working once within ${lazy.signIn().SIGN_IN_TTL_MS / 60_000} minutes: ${server.signInUrl}`
      : '',
  ];
  // The agents the queue's workers say they serve (one describe call); none named when no worker says.
  const agents = await lazy
    .servedAgents()
    .servedAgents(runner.client, taskQueue)
    .catch(() => undefined);
  print(
    [
      `approvals inbox at ${server.url} for task queue "${taskQueue}" (identity: ${sources.filter(Boolean).join(', ')}${linkSecret ? '; one-click links on' : ''}${slackSigningSecret ? '; Slack buttons at POST /slack/actions' : ''})`,
      `AG-UI: ${server.url}/ag-ui/{agent}${agents?.length ? ` (agents: ${agents.join(', ')})` : ''}`,
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
}
