import { setTimeout as sleep } from "node:timers/promises";
import { getConfig, type SignInSettings } from "~/lib/config.server";
import { createThrottledWarning, logger } from "~/lib/logger.server";
import { connectRedis, RedisUnavailableError, type RedisConnection } from "~/lib/redis.server";
import * as provider from "./provider.server";
import {
  carriesSessionCookie,
  createMemoryBackend,
  createRedisBackend,
  createSessionStore,
  getSessionTtlSeconds,
  type Session,
  type SessionStore,
} from "./session-store.server";

export type Visitor = { session: Session | null; cookies: string[]; storeUnavailable: boolean };

// An access token is refreshed once less than a quarter of its life, at most this, remains.
const MAX_REFRESH_MARGIN_MS = 60_000;

const warnRedisFailed = createThrottledWarning(
  "sessions: Redis failed, signed-in pages answer 503 until it is back",
);
let opened: Promise<{ store: SessionStore; redis?: RedisConnection }> | undefined;

export async function getSessionStore(settings: SignInSettings) {
  opened ??= settings.redisUrl
    ? connectRedis(settings.redisUrl, {
        // How long a page waits on Redis, its connection included, before sessions are unavailable.
        timeoutMs: 1_000,
        waitForConnection: true,
        warn: warnRedisFailed,
      }).then((redis) => ({
        store: createSessionStore(createRedisBackend(redis), settings),
        redis,
      }))
    : Promise.resolve({ store: createSessionStore(createMemoryBackend(), settings) });
  return (await opened).store;
}

/** Why the instance cannot serve sessions yet (its Redis never connected), or null when it can. */
export async function getSessionsNotReady() {
  const settings = getConfig().signIn;
  if (!settings?.redisUrl) return null;
  await getSessionStore(settings);
  return (await opened)!.redis!.hasConnected() ? null : "connecting to Redis";
}

const visitors = new WeakMap<Request, Promise<Visitor>>();

/** The visitor of `request`, read once however many loaders ask, their session ended or refreshed as due. */
export function readVisitor(request: Request, settings: SignInSettings): Promise<Visitor> {
  let visitor = visitors.get(request);
  if (!visitor) visitors.set(request, (visitor = loadVisitor(request, settings)));
  return visitor;
}

async function loadVisitor(request: Request, settings: SignInSettings): Promise<Visitor> {
  const sessions = await getSessionStore(settings);
  const signedOut = (cookies: string[] = []) => ({
    session: null,
    cookies,
    storeUnavailable: false,
  });
  try {
    const session = await sessions.load(request);
    // A cookie naming no session is cleared, so the next answers may be cached again.
    if (!session)
      return signedOut(carriesSessionCookie(request) ? [await sessions.remove(null)] : []);
    const now = Date.now();
    const current =
      getSessionTtlSeconds(session, settings, now) > 0
        ? await refreshIfDue(session, settings)
        : null;
    if (!current) return signedOut([await sessions.remove(session)]);
    const touchEvery = Math.min(60_000, (settings.idleSeconds * 1000) / 10);
    if (current === session && now - session.seenAt < touchEvery)
      return { ...signedOut(), session };
    const touched = { ...current, seenAt: now };
    const cookie = await sessions.save(touched, current);
    if (cookie) return { session: touched, cookies: [cookie], storeUnavailable: false };
    // Ended meanwhile (a sign-out), or refreshed elsewhere: as stored now.
    const stored = await sessions.get(session.id);
    return stored ? { ...signedOut(), session: stored } : signedOut([await sessions.remove(null)]);
  } catch (error) {
    if (!(error instanceof RedisUnavailableError)) throw error;
    return { session: null, cookies: [], storeUnavailable: true };
  }
}

function refreshIfDue(session: Session, settings: SignInSettings) {
  const margin = Math.min(
    MAX_REFRESH_MARGIN_MS,
    (session.tokenExpiresAt - session.tokenIssuedAt) / 4,
  );
  if (session.tokenExpiresAt - Date.now() > margin) return Promise.resolve(session);
  return refreshSession(session, settings);
}

// Refreshes under way; a finished one is not remembered: the store holds its result.
const refreshes = new Map<string, Promise<Session | null>>();

/** The session with fresh tokens, or null (signed out): one refresh at a time per session, on every instance. */
export function refreshSession(
  session: Session,
  settings: SignInSettings,
): Promise<Session | null> {
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
  if (!session.refreshToken) return session.tokenExpiresAt > Date.now() ? session : null;
  const lockMs = settings.timeoutMs * 2;
  // Another instance's refresh is waited for; a lock its holder died with runs out, then this one refreshes.
  const endsAt = Date.now() + 2 * lockMs;
  for (;;) {
    const outcome = await refreshUnderLock(session, settings, sessions, lockMs);
    if (outcome) return outcome.session;
    const stored = await sessions.get(session.id);
    if (stored?.tokenIssuedAt !== session.tokenIssuedAt) return stored;
    if (Date.now() > endsAt) break;
    await sleep(100);
  }
  logger.warn("sign-in: another instance's token refresh did not finish in time");
  return session.tokenExpiresAt > Date.now() ? session : null;
}

function refreshUnderLock(
  session: Session,
  settings: SignInSettings,
  sessions: SessionStore,
  lockMs: number,
) {
  const stillValid = session.tokenExpiresAt > Date.now();
  return sessions.withLock(`refresh:${session.id}`, lockMs, async () => {
    const stored = await sessions.get(session.id);
    if (stored?.tokenIssuedAt !== session.tokenIssuedAt) return { session: stored };
    try {
      const { client, config } = await provider.getProvider(settings);
      const tokens = await client.refreshTokenGrant(config, session.refreshToken!);
      const next = provider.withTokens(session, tokens, settings.rolesClaim);
      // Written only over the tokens it refreshed: a sign-out meanwhile holds.
      return { session: (await sessions.save(next, session)) ? next : await sessions.get(next.id) };
    } catch (error) {
      if (error instanceof RedisUnavailableError) throw error;
      // A refused token or untrusted tokens end the session; a provider that failed may answer next time.
      const refused = provider.getProviderFailure(error, "token refresh") === "SIGN_IN_EXPIRED";
      if (!refused && !(error instanceof provider.UntrustedTokensError))
        return { session: stillValid ? session : null };
      await sessions.remove(session);
      return { session: null };
    }
  });
}
