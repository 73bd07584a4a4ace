import { randomBytes } from "node:crypto";
import { z } from "zod";
import { getConfig, type SignInSettings } from "~/lib/config.server";
import { createSignedCookie, getCookieName } from "~/lib/cookies.server";
import type { RedisConnection } from "~/lib/redis.server";

// As Redis keeps it: a record of another shape (a rolling upgrade's) reads as no session.
const StoredSessionSchema = z.object({
  sub: z.string(),
  name: z.string(),
  roles: z.array(z.string()),
  accessToken: z.string(),
  refreshToken: z.string().nullable(),
  idToken: z.string().nullable(),
  tokenIssuedAt: z.number(),
  tokenExpiresAt: z.number(),
  createdAt: z.number(),
  seenAt: z.number(),
});

export type Session = z.infer<typeof StoredSessionSchema> & { id: string };

function readStoredSession(id: string, stored: string): Session | null {
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return null;
  }
  const result = StoredSessionSchema.safeParse(value);
  return result.success ? { ...result.data, id } : null;
}

type Backend = {
  get(id: string): Promise<Session | null>;
  /** Writes a new session, or one still stored with the tokens issued at `over`; else false. */
  set(session: Session, seconds: number, over?: number): Promise<boolean>;
  delete(session: Session): Promise<void>;
  claimOnce(key: string, seconds: number): Promise<boolean>;
  withLock<T>(key: string, milliseconds: number, task: () => Promise<T>): Promise<T | null>;
};

export const MAX_MEMORY_SESSIONS = 10_000;
// An account's sessions at once (decision 023): its next sign-in ends its oldest.
export const MAX_SESSIONS_PER_ACCOUNT = 10;
const MAX_CLAIMS = 100_000;

export const createSessionId = () => randomBytes(32).toString("base64url");

export function getSessionTtlSeconds(session: Session, settings: SignInSettings, now = Date.now()) {
  const absoluteEnd = session.createdAt + settings.maxSeconds * 1000;
  const idleEnd = session.seenAt + settings.idleSeconds * 1000;
  return Math.max(0, Math.ceil((Math.min(absoluteEnd, idleEnd) - now) / 1000));
}

/** Whether the request carries a session cookie, valid or not: its answer may show who the visitor is. */
export function carriesSessionCookie(request: Request) {
  if (!getConfig().signIn) return false;
  const prefix = `${getCookieName("session")}=`;
  return (request.headers.get("Cookie") ?? "")
    .split(";")
    .some((pair) => pair.trim().startsWith(prefix));
}

export type SessionStore = ReturnType<typeof createSessionStore>;

export function createSessionStore(backend: Backend, settings: SignInSettings) {
  const cookie = createSignedCookie("session");
  return {
    ...backend,
    async load(request: Request) {
      const id: unknown = await cookie.parse(request.headers.get("Cookie"));
      return typeof id === "string" ? backend.get(id) : null;
    },
    /** The session's cookie once written: new, or over the version `over` read (else null). */
    async save(session: Session, over?: Session) {
      const ttl = getSessionTtlSeconds(session, settings);
      if (!(await backend.set(session, ttl, over?.tokenIssuedAt))) return null;
      const maxAge = Math.ceil(
        (session.createdAt + settings.maxSeconds * 1000 - Date.now()) / 1000,
      );
      return cookie.serialize(session.id, { maxAge: Math.max(0, maxAge) });
    },
    async remove(session: Session | null) {
      if (session) await backend.delete(session);
      return cookie.serialize("", { maxAge: 0 });
    },
  };
}

/** Sessions in this process's memory, the least recently saved going first past the cap. */
export function createMemoryBackend(): Backend {
  const sessions = new Map<string, { session: Session; until: number }>();
  // Each account's session ids, the first signed in first.
  const accounts = new Map<string, Set<string>>();
  const claims = new Map<string, { until: number }>();
  const forget = (id: string) => {
    const sub = sessions.get(id)?.session.sub ?? "";
    sessions.delete(id);
    const ids = accounts.get(sub);
    if (ids?.delete(id) && ids.size === 0) accounts.delete(sub);
  };
  // Both maps are in the order their entries were written: the oldest first.
  const makeRoom = <T extends { until: number }>(
    entries: Map<string, T>,
    max: number,
    remove: (key: string) => void = (key) => entries.delete(key),
  ) => {
    for (const [key, { until }] of entries) {
      if (until > Date.now() && entries.size < max) break;
      remove(key);
    }
  };
  return {
    get: async (id) => {
      const kept = sessions.get(id);
      return kept && kept.until > Date.now() ? kept.session : null;
    },
    async set(session, seconds, over) {
      const kept = sessions.get(session.id);
      const isCurrent = kept && kept.until > Date.now() && kept.session.tokenIssuedAt === over;
      if (over !== undefined && !isCurrent) return false;
      sessions.delete(session.id);
      makeRoom(sessions, MAX_MEMORY_SESSIONS, forget);
      sessions.set(session.id, { session, until: Date.now() + seconds * 1000 });
      const ids = accounts.get(session.sub) ?? new Set();
      accounts.set(session.sub, ids.add(session.id));
      // Ended sessions first, then the oldest live ones past the most.
      for (const id of ids) if (!(sessions.get(id)!.until > Date.now())) forget(id);
      for (const id of ids) if (ids.size > MAX_SESSIONS_PER_ACCOUNT) forget(id);
      return true;
    },
    delete: async ({ id }) => void forget(id),
    async claimOnce(key, seconds) {
      makeRoom(claims, MAX_CLAIMS);
      if (claims.has(key)) return false;
      claims.set(key, { until: Date.now() + seconds * 1000 });
      return true;
    },
    // One instance: the refreshes shared in session.server.ts are its lock.
    withLock: (_key, _milliseconds, task) => task(),
  };
}

const SESSION_PREFIX = "session:";

export function createRedisBackend(redis: RedisConnection): Backend {
  const keyOf = (id: string) => `${SESSION_PREFIX}${id}`;
  const accountOf = (sub: string) => `account:${sub}`;
  return {
    async get(id) {
      const stored = await redis.command<string | null>(["GET", keyOf(id)]);
      return stored ? readStoredSession(id, stored) : null;
    },
    async set(session, seconds, over) {
      const keys = [keyOf(session.id), accountOf(session.sub)];
      const ttl = String(Math.max(1, seconds));
      const most = String(MAX_SESSIONS_PER_ACCOUNT);
      const args = [JSON.stringify(session), ttl, String(session.createdAt), session.id, most];
      const version = over === undefined ? "" : String(over);
      const saved = ["EVAL", SAVE_SESSION, "2", ...keys, ...args, SESSION_PREFIX, version];
      return (await redis.command(saved)) === 1;
    },
    delete: async ({ id, sub }) =>
      void (await redis.command(["EVAL", END_SESSION, "2", keyOf(id), accountOf(sub), id])),
    claimOnce: async (key, seconds) =>
      (await redis.command(["SET", `claim:${key}`, "1", "NX", "EX", String(seconds)])) === "OK",
    async withLock(key, milliseconds, task) {
      const lock = `lock:${key}`;
      const token = createSessionId();
      if ((await redis.command(["SET", lock, token, "NX", "PX", String(milliseconds)])) !== "OK")
        return null;
      try {
        return await task();
      } finally {
        // Released only by its holder: a lock that outlived its time may be another's now.
        await redis.command(["EVAL", RELEASE_LOCK, "1", lock, token]).catch(() => undefined);
      }
    },
  };
}

// The session, new or over the version it was read at, and its account's live sessions by sign-in
// time, past the most of which the oldest end.
const SAVE_SESSION = `if ARGV[7] ~= "" then
  local read, kept = pcall(cjson.decode, redis.call("GET", KEYS[1]) or "")
  if not read or type(kept) ~= "table" or kept.tokenIssuedAt ~= tonumber(ARGV[7]) then return 0 end
end
redis.call("SET", KEYS[1], ARGV[1], "EX", ARGV[2])
redis.call("ZADD", KEYS[2], "NX", ARGV[3], ARGV[4])
for _, id in ipairs(redis.call("ZRANGE", KEYS[2], 0, -1)) do
  if redis.call("EXISTS", ARGV[6] .. id) == 0 then redis.call("ZREM", KEYS[2], id) end
end
for _, id in ipairs(redis.call("ZRANGE", KEYS[2], 0, -tonumber(ARGV[5]) - 1)) do
  redis.call("DEL", ARGV[6] .. id)
  redis.call("ZREM", KEYS[2], id)
end
if redis.call("TTL", KEYS[2]) < tonumber(ARGV[2]) then redis.call("EXPIRE", KEYS[2], ARGV[2]) end
return 1`;

const END_SESSION = `redis.call("DEL", KEYS[1])
redis.call("ZREM", KEYS[2], ARGV[1])`;

const RELEASE_LOCK = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;
