import { setTimeout as sleep } from "node:timers/promises";
import { getConfig, type SignInSettings } from "~/lib/config.server";
import { logger } from "~/lib/logger.server";
import { getProvider, getProviderFailure, type TokenSet } from "./provider.server";
import { connectSessionRedis } from "./redis.server";
import { CookieTooLargeError } from "./sealed-cookie.server";
import {
  createCookieSessionStore,
  createRedisSessionStore,
  getSessionTtlSeconds,
  StoreUnavailableError,
  type Session,
  type SessionStore,
} from "./session-store.server";

/** The request's visitor: their session (null when signed out), and the Set-Cookie values to send. */
export type Visitor = { session: Session | null; cookies: string[]; storeUnavailable: boolean };

// An access token is refreshed once less than a quarter of its life, at most this, remains.
const MAX_REFRESH_MARGIN_MS = 60_000;
// What a token endpoint that gives no expires_in is taken to mean.
const DEFAULT_TOKEN_LIFETIME_S = 300;
// A refresh's result is reused for requests that still carry the session as it was before.
const REFRESH_MEMORY_MS = 30_000;

let store: Promise<SessionStore> | undefined;

export function getSessionStore(settings: SignInSettings) {
  store ??= settings.redisUrl
    ? connectSessionRedis(settings.redisUrl).then((redis) =>
        createRedisSessionStore(redis, getConfig().secureCookies),
      )
    : Promise.resolve(createCookieSessionStore());
  return store;
}

const visitors = new WeakMap<Request, Promise<Visitor>>();

/**
 * The visitor of `request`, read once per request however many loaders ask: a session past its
 * idle or absolute end is ended, and one whose access token is due is refreshed first.
 */
export function readVisitor(request: Request, settings: SignInSettings): Promise<Visitor> {
  let visitor = visitors.get(request);
  if (!visitor) {
    visitor = loadVisitor(request, settings);
    visitors.set(request, visitor);
  }
  return visitor;
}

async function loadVisitor(request: Request, settings: SignInSettings): Promise<Visitor> {
  const sessions = await getSessionStore(settings);
  try {
    const session = await sessions.load(request);
    if (!session) return { session: null, cookies: [], storeUnavailable: false };
    const now = Date.now();
    const current =
      getSessionTtlSeconds(session, settings, now) > 0 ? await refreshIfDue(session, settings) : null;
    if (!current) return { session: null, cookies: await sessions.remove(session), storeUnavailable: false };
    const touchEvery = Math.min(60_000, (settings.idleSeconds * 1000) / 10);
    if (current === session && now - session.seenAt < touchEvery) {
      return { session, cookies: [], storeUnavailable: false };
    }
    const touched = { ...current, seenAt: now };
    return { session: touched, cookies: await sessions.save(touched, settings), storeUnavailable: false };
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    return { session: null, cookies: [], storeUnavailable: true };
  }
}

function refreshIfDue(session: Session, settings: SignInSettings) {
  // Refreshed since this copy was read (an API's 401 in an earlier request): the cookie catches up.
  const known = refreshes.get(getRefreshKey(session));
  if (known && known.until >= Date.now()) return known.result;
  const margin = Math.min(MAX_REFRESH_MARGIN_MS, (session.tokenExpiresAt - session.tokenIssuedAt) / 4);
  if (session.tokenExpiresAt - Date.now() > margin) return Promise.resolve(session);
  return refreshSession(session, settings);
}

const refreshes = new Map<string, { result: Promise<Session | null>; until: number }>();

const getRefreshKey = (session: Session) => `${session.id}:${session.tokenIssuedAt}`;

/**
 * The session with fresh tokens, or null when they could not be had (the visitor is signed out).
 * One refresh at a time per session: requests arriving meanwhile, or soon after with the session
 * as it was, share its result; with Redis a lock keeps other instances from refreshing it too.
 */
export function refreshSession(session: Session, settings: SignInSettings): Promise<Session | null> {
  const key = getRefreshKey(session);
  const now = Date.now();
  for (const [known, entry] of refreshes) {
    if (entry.until >= now) break;
    refreshes.delete(known);
  }
  const known = refreshes.get(key);
  if (known) return known.result;
  const result = runRefresh(session, settings);
  refreshes.set(key, { result, until: now + REFRESH_MEMORY_MS });
  return result;
}

async function runRefresh(session: Session, settings: SignInSettings): Promise<Session | null> {
  const sessions = await getSessionStore(settings);
  const stillValid = session.tokenExpiresAt > Date.now();
  if (!session.refreshToken) return stillValid ? session : null;
  const deadline = settings.timeoutMs * 2;
  const outcome = await sessions.withLock(`refresh:${session.id}`, deadline, async () => {
    const stored = await sessions.reload(session);
    // Ended meanwhile, or refreshed by another instance since this request read it.
    if (!stored || stored.tokenIssuedAt !== session.tokenIssuedAt) return { session: stored };
    try {
      const provider = await getProvider(settings);
      const tokens = await provider.client.refreshTokenGrant(provider.config, session.refreshToken!);
      const next = withTokens(session, tokens, settings);
      await sessions.save(next, settings);
      return { session: next };
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      if (error instanceof CookieTooLargeError) return { session: null };
      // A refresh token the provider refuses is dead; a provider that failed may answer next time.
      const refused = getProviderFailure(error, "token refresh") === "SIGN_IN_EXPIRED";
      return { session: stillValid && !refused ? session : null };
    }
  });
  return outcome ? outcome.session : waitForRefreshElsewhere(session, sessions, deadline);
}

async function waitForRefreshElsewhere(session: Session, sessions: SessionStore, deadline: number) {
  for (const endsAt = Date.now() + deadline; Date.now() < endsAt;) {
    await sleep(100);
    const stored = await sessions.reload(session);
    if (!stored || stored.tokenIssuedAt !== session.tokenIssuedAt) return stored;
  }
  logger.warn("sign-in: another instance's token refresh did not finish in time");
  return session.tokenExpiresAt > Date.now() ? session : null;
}

/** `session` (or a new one) holding `tokens`, its user read again from a new ID token. */
export function withTokens<S extends Partial<Session>>(
  session: S,
  tokens: TokenSet,
  settings: SignInSettings,
) {
  const now = Date.now();
  const claims = tokens.id_token ? tokens.claims() : undefined;
  return {
    ...session,
    ...(claims ? readUser(claims, settings.rolesClaim) : {}),
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? session.refreshToken ?? null,
    idToken: tokens.id_token ?? session.idToken ?? null,
    tokenIssuedAt: now,
    tokenExpiresAt: now + (tokens.expiresIn() ?? DEFAULT_TOKEN_LIFETIME_S) * 1000,
  };
}

/** Who the ID token's claims say the visitor is: a name to show and their roles. */
export function readUser(claims: Record<string, unknown>, rolesClaim: string) {
  let roles: unknown = claims;
  for (const key of rolesClaim.split(".")) {
    roles = roles && typeof roles === "object" ? (roles as Record<string, unknown>)[key] : undefined;
  }
  const names = [claims.name, claims.preferred_username, claims.email, claims.sub];
  return {
    sub: String(claims.sub),
    name: String(names.find((name) => typeof name === "string" && name.trim()) ?? ""),
    roles: Array.isArray(roles)
      ? roles.filter((role) => typeof role === "string")
      : typeof roles === "string"
        ? [roles]
        : [],
  };
}
