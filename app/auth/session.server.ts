import { setTimeout as sleep } from "node:timers/promises";
import { getConfig, type SignInSettings } from "~/lib/config.server";
import { logger } from "~/lib/logger.server";
import {
  getProvider,
  getProviderFailure,
  noteProviderAnswered,
  requireHeaderSafeTokens,
  UntrustedTokensError,
  type TokenSet,
} from "./provider.server";
import { connectRedis, RedisUnavailableError } from "~/lib/redis.server";
import { createThrottledWarning } from "~/lib/logger.server";
import { loadRedis } from "./libraries.server";
import {
  carriesSessionCookie,
  createMemorySessionStore,
  createRedisSessionStore,
  getSessionTtlSeconds,
  type Session,
  type SessionStore,
} from "./session-store.server";

/** The request's visitor: their session (null when signed out), and the Set-Cookie values to send. */
export type Visitor = { session: Session | null; cookies: string[]; storeUnavailable: boolean };

// An access token is refreshed once less than a quarter of its life, at most this, remains.
const MAX_REFRESH_MARGIN_MS = 60_000;
// What a token endpoint that gives no expires_in is taken to mean.
const DEFAULT_TOKEN_LIFETIME_S = 300;

let store: Promise<{ sessions: SessionStore; hasConnected: () => boolean }> | undefined;

const warnRedisFailed = createThrottledWarning(
  "sessions: Redis failed, signed-in pages answer 503 until it is back",
);

function openSessionStore(settings: SignInSettings) {
  store ??= settings.redisUrl
    ? connectRedis(settings.redisUrl, {
        // A page waits at most this long, the connection included, before it says sessions are unavailable.
        timeoutMs: 1_000,
        waitForConnection: true,
        warn: warnRedisFailed,
        onReady: warnRedisFailed.reset,
        loadRedis,
      }).then((redis) => ({
        sessions: createRedisSessionStore(redis),
        hasConnected: redis.hasConnected,
      }))
    : Promise.resolve({ sessions: createMemorySessionStore(), hasConnected: () => true });
  return store;
}

/** Sessions in Redis with SESSION_REDIS_URL, else in this process's memory. */
export async function getSessionStore(settings: SignInSettings) {
  return (await openSessionStore(settings)).sessions;
}

/**
 * Why the instance cannot serve sessions yet, or null when it can: with Redis, until its first
 * connection is made (opened by the first to ask). A Redis lost after that is the pages' 503.
 */
export async function getSessionsNotReady() {
  const settings = getConfig().signIn;
  if (!settings?.redisUrl) return null;
  const { hasConnected } = await openSessionStore(settings);
  return hasConnected() ? null : "connecting to Redis";
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
    // A cookie naming no session (ended, or forged) is cleared, so the next answers may be cached again.
    if (!session) {
      const stale = carriesSessionCookie(request) ? await sessions.remove(null) : [];
      return { session: null, cookies: stale, storeUnavailable: false };
    }
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
    if (!(error instanceof RedisUnavailableError)) throw error;
    return { session: null, cookies: [], storeUnavailable: true };
  }
}

function refreshIfDue(session: Session, settings: SignInSettings) {
  const margin = Math.min(MAX_REFRESH_MARGIN_MS, (session.tokenExpiresAt - session.tokenIssuedAt) / 4);
  if (session.tokenExpiresAt - Date.now() > margin) return Promise.resolve(session);
  return refreshSession(session, settings);
}

// Refreshes under way; a finished one is not remembered: the store holds its result.
const refreshes = new Map<string, Promise<Session | null>>();

/**
 * The session with fresh tokens, or null when they could not be had (the visitor is signed out).
 * One refresh at a time per session: requests arriving meanwhile share its result; with Redis a
 * lock keeps other instances from refreshing it too. A failed refresh is tried again by the next
 * request, while the token lasts.
 */
export function refreshSession(session: Session, settings: SignInSettings): Promise<Session | null> {
  const key = `${session.id}:${session.tokenIssuedAt}`;
  let refresh = refreshes.get(key);
  if (!refresh) {
    refresh = runRefresh(session, settings).finally(() => refreshes.delete(key));
    refreshes.set(key, refresh);
  }
  return refresh;
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
      noteProviderAnswered();
      const next = withTokens(session, tokens, settings);
      await sessions.save(next, settings);
      return { session: next };
    } catch (error) {
      if (error instanceof RedisUnavailableError) throw error;
      // A refresh token the provider refuses is dead, and tokens it should not have sent end the
      // session everywhere; a provider that failed may answer the next request.
      const refused = getProviderFailure(error, "token refresh") === "SIGN_IN_EXPIRED";
      if (!refused && !(error instanceof UntrustedTokensError))
        return { session: stillValid ? session : null };
      await sessions.remove(session);
      return { session: null };
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

/**
 * `session` (or a new one) holding `tokens`, its user read again from a new ID token. Throws
 * UntrustedTokensError for an access token that could not be sent, or an ID token naming another
 * subject than the session's (OpenID Connect Core 12.2).
 */
export function withTokens<S extends Partial<Session>>(
  session: S,
  tokens: TokenSet,
  settings: SignInSettings,
) {
  requireHeaderSafeTokens(tokens);
  const now = Date.now();
  const claims = tokens.id_token ? tokens.claims() : undefined;
  if (claims && session.sub !== undefined && claims.sub !== session.sub) {
    throw new UntrustedTokensError("a refreshed ID token names another subject, the session is ended");
  }
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
