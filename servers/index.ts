// `countersign/servers`: the approvals inbox, the AG-UI routes and the codec server in your own process (each brings its HTTP stack).
export { startInbox, type InboxOptions } from './inbox/inboxServer';
export type { JwtIdentityOptions } from './inbox/jwtIdentity';
export type { LocalSignInOptions } from './inbox/localSignIn';
export { startCodecServer, type CodecServerOptions } from './codecServer';
export { addAgUiRoutes, type AgUiContext } from './agUi/agUiRoutes';
