import { randomBytes } from "node:crypto";
import { getConfig, type SignInSettings } from "~/lib/config.server";
import { createSignedCookie } from "~/lib/cookies.server";
import type { RedisConnection } from "~/lib/redis.server";

/** A signed-in visitor as this app keeps them, on the server only: the cookie holds its id. */
export type Session = {
  id: string;
  /** The provider's subject: who the visitor is there. */
  sub: string;
  name: string;
  roles: string[];
  accessToken: string;
  refreshToken: string | null;
  /** For RP-initiated logout's hint. */
  idToken: string | null;
  /** When the access token was issued and when it expires (epoch milliseconds). */
  tokenIssuedAt: number;
  tokenExpiresAt: number;
  createdAt: number;
  seenAt: number;
};

export type SessionStore = {
  /** The request's session, or null; throws RedisUnavailableError when the store cannot answer. */
  load(request: Request): Promise<Session | null>;
  /** Keeps `session` until its idle or absolute end; returns the Set-Cookie values to send. */
  save(session: Session, settings: SignInSettings): Promise<string[]>;
  /** The stored copy of `session` as another request or instance may have changed it. */
  reload(session: Session): Promise<Session | null>;
  /** Forgets `session`; returns the Set-Cookie values that clear it. */
  remove(session: Session | null): Promise<string[]>;
  /** True the first time `key` is claimed within `seconds`, false after. */
  claimOnce(key: string, seconds: number): Promise<boolean>;
  /** Runs `task` unless another instance holds the lock for `key`; null when it does. */
  withLock<T>(key: string, milliseconds: number, task: () => Promise<T>): Promise<T | null>;
};

// Sessions and sign-ins one instance keeps in memory without Redis, so that memory stays bounded.
export const MAX_MEMORY_SESSIONS = 10_000;
const MAX_CLAIMS = 100_000;
const SESSION_ID = /^[\w-]{43}$/;

export function createSessionId() {
  return randomBytes(32).toString("base64url");
}

/** Seconds the session may still live: the idle end or the absolute end, whichever comes first. */
export function getSessionTtlSeconds(session: Session, settings: SignInSettings, now = Date.now()) {
  const absoluteEnd = session.createdAt + settings.maxSeconds * 1000;
  const idleEnd = session.seenAt + settings.idleSeconds * 1000;
  return Math.max(0, Math.ceil((Math.min(absoluteEnd, idleEnd) - now) / 1000));
}

const getSessionCookieName = () => (getConfig().secureCookies ? "__Host-session" : "session");

/** Whether the request carries a session cookie, valid or not: its answer may show who the visitor is. */
export function carriesSessionCookie(request: Request) {
  if (!getConfig().signIn) return false;
  const name = getSessionCookieName();
  return (request.headers.get("Cookie") ?? "").split(";").some((pair) => pair.trim().startsWith(`${name}=`));
}

/** The session cookie: the session's random id, signed, for as long as the session may last. */
function createSessionCookie() {
  const cookie = createSignedCookie(getSessionCookieName());
  return {
    async read(request: Request) {
      const id: unknown = await cookie.parse(request.headers.get("Cookie"));
      return typeof id === "string" && SESSION_ID.test(id) ? id : null;
    },
    write(session: Session, settings: SignInSettings) {
      const absoluteEnd = session.createdAt + settings.maxSeconds * 1000;
      return cookie.serialize(session.id, {
        maxAge: Math.max(0, Math.ceil((absoluteEnd - Date.now()) / 1000)),
      });
    },
    clear: () => cookie.serialize("", { maxAge: 0 }),
  };
}

/**
 * Sessions in this process's memory, at most MAX_MEMORY_SESSIONS (the least recently saved goes
 * first): one instance only, and a restart signs everyone out.
 */
export function createMemorySessionStore(): SessionStore {
  const cookie = createSessionCookie();
  // Both kept in the order they were last written: the oldest first.
  const sessions = new Map<string, Session>();
  const claimed = new Map<string, number>();
  return {
    async load(request) {
      const id = await cookie.read(request);
      return (id && sessions.get(id)) || null;
    },
    reload: async (session) => sessions.get(session.id) ?? null,
    async save(session, settings) {
      const now = Date.now();
      sessions.delete(session.id);
      for (const [id, kept] of sessions) {
        if (sessions.size < MAX_MEMORY_SESSIONS && getSessionTtlSeconds(kept, settings, now) > 0) break;
        sessions.delete(id);
      }
      sessions.set(session.id, session);
      return [await cookie.write(session, settings)];
    },
    async remove(session) {
      if (session) sessions.delete(session.id);
      return [await cookie.clear()];
    },
    async claimOnce(key, seconds) {
      const now = Date.now();
      for (const [claimedKey, until] of claimed) {
        if (until >= now && claimed.size < MAX_CLAIMS) break;
        claimed.delete(claimedKey);
      }
      if (claimed.has(key)) return false;
      claimed.set(key, now + seconds * 1000);
      return true;
    },
    // One instance: the in-process queue in session.server.ts is the lock.
    withLock: (_key, _milliseconds, task) => task(),
  };
}

type Redis = Pick<RedisConnection, "command">;

/** Sessions in Redis, shared by every instance. */
export function createRedisSessionStore(redis: Redis): SessionStore {
  const cookie = createSessionCookie();
  const keyOf = (id: string) => `session:${id}`;
  const get = async (id: string) => {
    const stored = await redis.command<string | null>(["GET", keyOf(id)]);
    return stored ? { ...(JSON.parse(stored) as Session), id } : null;
  };
  return {
    async load(request) {
      const id = await cookie.read(request);
      return id ? get(id) : null;
    },
    reload: (session) => get(session.id),
    async save(session, settings) {
      const seconds = getSessionTtlSeconds(session, settings);
      await redis.command([
        "SET",
        keyOf(session.id),
        JSON.stringify(session),
        "EX",
        String(Math.max(1, seconds)),
      ]);
      return [await cookie.write(session, settings)];
    },
    async remove(session) {
      if (session) await redis.command(["DEL", keyOf(session.id)]);
      return [await cookie.clear()];
    },
    async claimOnce(key, seconds) {
      return (
        (await redis.command<string | null>(["SET", `claim:${key}`, "1", "NX", "EX", String(seconds)])) ===
        "OK"
      );
    },
    async withLock(key, milliseconds, task) {
      const lock = `lock:${key}`;
      const token = createSessionId();
      const taken = await redis.command<string | null>([
        "SET",
        lock,
        token,
        "NX",
        "PX",
        String(milliseconds),
      ]);
      if (taken !== "OK") return null;
      try {
        return await task();
      } finally {
        // Released only by its holder: a lock that outlived its time may belong to another.
        await redis.command(["EVAL", RELEASE_SCRIPT, "1", lock, token]).catch(() => undefined);
      }
    },
  };
}

const RELEASE_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;
