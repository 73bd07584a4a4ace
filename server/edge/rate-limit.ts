import { isIP } from "node:net";
import type { RequestHandler } from "express";
import { ipKeyGenerator, rateLimit, type Options, type Store } from "express-rate-limit";
import type { RedisReply } from "rate-limit-redis";
import { connectRedis } from "~/lib/redis.server";
import type { AppEntry } from "../app";
import { sendErrorPage } from "./error-page";

const WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED = /^\[([^\]]+)\](?::\d{1,5})?$/;
const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
// Counted on each load of the scripts (a Redis taking scripts but refusing writes is not counting).
const PROBE_KEY = "probe:scripts-loaded";

/** An address as proxies write it (`198.51.100.9:4711`, `[2001:db8::1]:80`) alone, or undefined. */
export function normaliseAddress(value: string | undefined) {
  const trimmed = value?.trim() ?? "";
  const address = BRACKETED.exec(trimmed)?.[1] ?? WITH_PORT.exec(trimmed)?.[1] ?? trimmed;
  if (!isIP(address)) return undefined;
  return MAPPED_IPV4.exec(address)?.[1] ?? address.toLowerCase();
}

/** At most `perMinute` writes a minute from one client address, counted here or in `store`. */
export function limitWrites(
  perMinute: number,
  store?: Store,
  onRateLimited?: () => void,
): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    // The address the trusted proxy forwarded, else the connection's; IPv6 by /56.
    keyGenerator: (req) =>
      ipKeyGenerator(
        normaliseAddress(req.ip) ?? normaliseAddress(req.socket.remoteAddress) ?? "unknown",
      ),
    // The library would log what a client sends at error level.
    validate: { ip: false, trustProxy: false, xForwardedForHeader: false, forwardedHeader: false },
    standardHeaders: "draft-8",
    legacyHeaders: false,
    handler: (_req, res) => {
      onRateLimited?.();
      sendErrorPage(res, "RATE_LIMITED");
    },
    ...(store
      ? { store, passOnStoreError: true, logger: { error: () => {}, warn: () => {} } }
      : {}),
  });
}

/**
 * The count shared in Redis; a failing Redis lets writes through uncounted, never holding one for
 * long. rate-limit-redis keeps a failed script load for good: any failure here loads them again.
 */
export async function startRateLimitStore(url: string, app: AppEntry, onError: () => void) {
  const { RedisStore } = await import("rate-limit-redis");
  const { logger } = app;
  const warnStoreFailed = app.createThrottledWarning(
    "rate limit: Redis failed, writes go through uncounted",
  );
  let options: Options | undefined;
  let loaded: Promise<void> | undefined;
  let counting = false;
  const redis = await connectRedis(url, {
    // A write waits at most this long on Redis before it goes through uncounted.
    timeoutMs: 250,
    waitForConnection: false,
    warn: warnStoreFailed,
    onReady: () => void reload().catch(() => {}),
  });
  const inner = new RedisStore({
    sendCommand: (...args: string[]) => redis.command<RedisReply>(args),
  });
  const forget = (error: unknown) => {
    loaded = undefined;
    counting = false;
    warnStoreFailed({ err: error });
  };
  function load() {
    loaded ??= inner
      .init(options!)
      .then(() => inner.increment(PROBE_KEY))
      .then(
        () => {
          if (counting) return;
          counting = true;
          logger.info("rate limit: counting in Redis");
        },
        (error: unknown) => {
          forget(error);
          throw error;
        },
      );
    return loaded;
  }
  function reload() {
    loaded = undefined;
    return load();
  }
  async function run<T>(command: () => Promise<T>) {
    try {
      await load();
      return await command();
    } catch (error) {
      forget(error);
      onError();
      throw error;
    }
  }
  const store: Store = {
    init(value) {
      options = value;
      if (redis.isReady()) void reload().catch(() => {});
    },
    increment: (key) => run(() => inner.increment(key)),
    decrement: (key) => run(() => inner.decrement(key)),
    resetKey: (key) => run(() => inner.resetKey(key)),
    get: (key) => run(() => inner.get(key)),
  };
  return { store, close: async () => redis.close() };
}
