import { randomBytes } from "node:crypto";
import type { SignInSettings } from "~/lib/config.server";
import { createSealedCookie, readCookie } from "./sealed-cookie.server";

/** A signed-in visitor as this app keeps them; its tokens never leave the server in clear. */
export type Session = {
  id: string;
  /** The provider's subject: who the visitor is there. */
  sub: string;
  name: string;
  roles: string[];
  accessToken: string;
  refreshToken: string | null;
  /** Kept with Redis only, for RP-initiated logout's hint; a cookie has no room for it. */
  idToken: string | null;
  /** When the access token was issued and when it expires (epoch milliseconds). */
  tokenIssuedAt: number;
  tokenExpiresAt: number;
  createdAt: number;
  seenAt: number;
};

export type SessionStore = {
  /** The request's session, or null; throws StoreUnavailableError when the store cannot answer. */
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

// Sign-ins remembered by one instance without Redis, so that a flood of them stays bounded.
const MAX_CLAIMS = 100_000;

export class StoreUnavailableError extends Error {
  name = "StoreUnavailableError";
}

export function createSessionId() {
  return randomBytes(32).toString("base64url");
}

/** Seconds the session may still live: the idle end or the absolute end, whichever comes first. */
export function getSessionTtlSeconds(session: Session, settings: SignInSettings, now = Date.now()) {
  const absoluteEnd = session.createdAt + settings.maxSeconds * 1000;
  const idleEnd = session.seenAt + settings.idleSeconds * 1000;
  return Math.max(0, Math.ceil((Math.min(absoluteEnd, idleEnd) - now) / 1000));
}

/** The whole session in an encrypted cookie: sessions survive restarts and need no shared store. */
export function createCookieSessionStore(): SessionStore {
  const cookie = createSealedCookie<Omit<Session, "idToken">>("session");
  const claimed = new Map<string, number>();
  return {
    async load(request) {
      const payload = await cookie.open(request);
      return payload ? { ...payload, idToken: null } : null;
    },
    reload: async (session) => session,
    async save(session, settings) {
      const { idToken: _left, ...kept } = session;
      return [await cookie.seal(kept, getSessionTtlSeconds(session, settings))];
    },
    async remove() {
      return [cookie.clear()];
    },
    async claimOnce(key, seconds) {
      const now = Date.now();
      // Claims are kept in the order they expire: drop from the front, and the oldest when full.
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

type Redis = {
  command<T>(args: string[]): Promise<T>;
};

/** Sessions in Redis, shared by every instance; the cookie holds only a random session id. */
export function createRedisSessionStore(redis: Redis, secureCookies: boolean): SessionStore {
  const name = secureCookies ? "__Host-session" : "session";
  const attributes = `Path=/; HttpOnly; SameSite=Lax${secureCookies ? "; Secure" : ""}`;
  const keyOf = (id: string) => `session:${id}`;
  return {
    async load(request) {
      const id = readCookie(request, name);
      if (!id || !/^[\w-]{43}$/.test(id)) return null;
      const stored = await redis.command<string | null>(["GET", keyOf(id)]);
      return stored ? { ...(JSON.parse(stored) as Session), id } : null;
    },
    async reload(session) {
      const stored = await redis.command<string | null>(["GET", keyOf(session.id)]);
      return stored ? { ...(JSON.parse(stored) as Session), id: session.id } : null;
    },
    async save(session, settings) {
      const seconds = getSessionTtlSeconds(session, settings);
      await redis.command([
        "SET",
        keyOf(session.id),
        JSON.stringify(session),
        "EX",
        String(Math.max(1, seconds)),
      ]);
      const absoluteSeconds = Math.ceil((session.createdAt + settings.maxSeconds * 1000 - Date.now()) / 1000);
      return [`${name}=${session.id}; Max-Age=${Math.max(0, absoluteSeconds)}; ${attributes}`];
    },
    async remove(session) {
      if (session) await redis.command(["DEL", keyOf(session.id)]);
      return [`${name}=; Max-Age=0; ${attributes}`];
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
