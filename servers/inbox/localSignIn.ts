// The one-time sign-in link `npm start` (and `countersign serve` with no identity source) prints: opening it signs
// this browser in as the local user with a session cookie the server minted. The link's token works once and only
// for a few minutes, the session ends after COUNTERSIGN_SIGN_IN_SESSION_TTL, and the whole thing exists on a
// loopback bind only (startInbox refuses it elsewhere, and the route refuses any caller that is not this machine):
// whoever can open it could already act as the local user.
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { approverNameProblem } from '../../contract/approverName';
import { isLoopback } from '../httpGuards';
import { messagePage } from './pages';

export const SESSION_COOKIE = 'countersign_session';
export const SIGN_IN_PATH = '/sign-in/:token';
/** Long enough to read the banner and click; short enough that a link left in a scrollback is dead. */
export const SIGN_IN_TTL_MS = 15 * 60_000;
/** A working day: a browser left signed in overnight must open a new link (COUNTERSIGN_SIGN_IN_SESSION_TTL). */
export const SIGN_IN_SESSION_TTL_MS = 12 * 3600_000;

export interface LocalSignInOptions {
  /** Who the link signs in (npm start: the local user's name). */
  approver: string;
  /** How long a link stays good (default 15 minutes). */
  ttlMs?: number;
  /** The command that printed the link, for the page that says how to get a new one (default `npm start`). */
  printedBy?: string;
  /** How long a session lasts after its link is used (default 12 hours). */
  sessionTtlMs?: number;
  /** The clock (ms since the epoch); tests turn it. */
  now?: () => number;
}

/** The name the local user decides as: the login name, or `local` where the system has none usable. */
export function localApprover(): string {
  try {
    const name = userInfo().username;
    return approverNameProblem(name) ? 'local' : name;
  } catch {
    return 'local'; // no passwd entry (some containers)
  }
}

/** Unguessable link tokens and session ids (256 bits each): a map lookup by one reveals nothing usable. */
const secret = () => randomBytes(32).toString('base64url');

export class LocalSignIn {
  private readonly links = new Map<string, number>();
  /** Session id → when it ends. */
  private readonly sessions = new Map<string, number>();
  private readonly now: () => number;
  readonly sessionTtlMs: number;
  readonly printedBy: string;

  constructor(
    readonly approver: string,
    private readonly ttlMs = SIGN_IN_TTL_MS,
    o: Pick<LocalSignInOptions, 'printedBy' | 'sessionTtlMs' | 'now'> = {},
  ) {
    this.printedBy = o.printedBy ?? 'npm start';
    this.sessionTtlMs = o.sessionTtlMs ?? SIGN_IN_SESSION_TTL_MS;
    this.now = o.now ?? Date.now;
  }

  /** A new link token, good once, until the TTL passes. */
  mintLink(): string {
    const token = secret();
    this.links.set(token, this.now() + this.ttlMs);
    return token;
  }

  /** A session id for a good token (now used up), or undefined for a used, expired or unknown one. */
  redeem(token: string): string | undefined {
    const expires = this.links.get(token);
    this.links.delete(token);
    if (expires === undefined || this.now() > expires) return undefined;
    const session = secret();
    this.sessions.set(session, this.now() + this.sessionTtlMs);
    return session;
  }

  /** The approver a session cookie stands for, if this server minted it and it has not ended (an ended one is forgotten). */
  approverOf(session: string | undefined): string | undefined {
    const ends = session === undefined ? undefined : this.sessions.get(session);
    if (ends === undefined) return undefined;
    if (this.now() <= ends) return this.approver;
    this.sessions.delete(session!);
    return undefined;
  }
}

/** GET /sign-in/<token>: the session cookie, then the inbox; a used or expired link says so and signs in no one. */
export function addSignInRoute(app: FastifyInstance, signIn: LocalSignIn): void {
  app.get<{ Params: { token: string } }>(SIGN_IN_PATH, (req, reply) => {
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    const session = isLoopback(req.socket.remoteAddress ?? '') ? signIn.redeem(req.params.token) : undefined;
    if (!session)
      return reply
        .code(401)
        .type('text/html')
        .send(
          messagePage(
            'This sign-in link cannot be used',
            `It was used already or has expired: stop ${signIn.printedBy} and start it again for a new one.`,
          ),
        );
    const maxAge = Math.floor(signIn.sessionTtlMs / 1000); // the browser drops it when the server does
    reply.setCookie(SESSION_COOKIE, session, { httpOnly: true, sameSite: 'strict', path: '/', maxAge });
    return reply.redirect('/', 303);
  });
}
