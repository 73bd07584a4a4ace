import { isIP } from "node:net";
import type { Request, RequestHandler } from "express";
import { ipKeyGenerator, rateLimit, type Options, type Store } from "express-rate-limit";
import type { RedisReply, RedisStore } from "rate-limit-redis";
import { createThrottledWarning, logger } from "~/lib/logger.server";
import { connectRedis } from "~/lib/redis.server";
import { sendErrorPage } from "./error-page";

const WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED = /^\[([^\]]+)\](?::\d{1,5})?$/;
const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
// Counted once on each load of the scripts; no client address looks like it.
const PROBE_KEY = "probe:scripts-loaded";

const warnStoreFailed = createThrottledWarning("rate limit: Redis failed, writes go through uncounted");

/**
 * An address as proxies write it (`198.51.100.9:4711`, `[2001:db8::1]:80`, `::ffff:198.51.100.9`)
 * reduced to the address alone; undefined when it is no address at all.
 */
export function normaliseAddress(value: string | undefined) {
  const trimmed = value?.trim() ?? "";
  const address = BRACKETED.exec(trimmed)?.[1] ?? WITH_PORT.exec(trimmed)?.[1] ?? trimmed;
  if (!isIP(address)) return undefined;
  return MAPPED_IPV4.exec(address)?.[1] ?? address.toLowerCase();
}

// The address the trusted proxy forwarded (req.ip under TRUST_PROXY), else the connection's.
const getClientAddress = (req: Request) =>
  normaliseAddress(req.ip) ?? normaliseAddress(req.socket.remoteAddress) ?? "unknown";

/** At most `perMinute` writes a minute from one client address, counted here or in `store`; the edge skips reads. */
export function limitWrites(perMinute: number, store?: Store, onRateLimited?: () => void): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    // IPv6 clients are counted by /56, as the library does by default.
    keyGenerator: (req) => ipKeyGenerator(getClientAddress(req)),
    // What a client sends is not the library's to judge: it would say so at error level.
    validate: { ip: false, trustProxy: false, xForwardedForHeader: false, forwardedHeader: false },
    standardHeaders: "draft-8",
    legacyHeaders: false,
    handler: (_req, res) => {
      onRateLimited?.();
      sendErrorPage(res, "RATE_LIMITED");
    },
    ...(store ? { store, passOnStoreError: true, logger: { error: () => {}, warn: () => {} } } : {}),
  });
}

/**
 * The count kept in Redis (rate-limit-redis), so every instance sharing `url` counts against one
 * limit. A failing Redis never holds a write for long nor refuses it: the limiter lets it through
 * and `onError` counts it. The scripts are loaded on each connection and after any failure.
 */
export async function startRateLimitStore(url: string, onError: () => void) {
  const { RedisStore } = await import("rate-limit-redis");
  const redis = await connectRedis(url, {
    // A write waits at most this long on Redis before it goes through uncounted.
    timeoutMs: 250,
    waitForConnection: false,
    warn: warnStoreFailed,
    onReady: () => void store.reload().catch(() => {}),
    loadRedis: () => import("redis"),
  });
  const failed = (error: unknown) => {
    onError();
    warnStoreFailed({ err: error });
  };
  const inner = new RedisStore({ sendCommand: (...args: string[]) => redis.command<RedisReply>(args) });
  const store = new ResilientRedisStore(inner, failed, redis.isReady);
  return { store, close: async () => redis.close() };
}

/**
 * rate-limit-redis keeps a failed script load for good, so every write would fail from then on:
 * here any failure drops the loaded scripts, and the next command loads them first. A load counts
 * one write under PROBE_KEY: a Redis that takes scripts but refuses writes is not counting.
 */
class ResilientRedisStore implements Store {
  private options?: Options;
  private loaded?: Promise<void>;
  private counting = false;

  constructor(
    private readonly inner: RedisStore,
    private readonly onError: (error: unknown) => void,
    private readonly isConnected: () => boolean,
  ) {}

  init(options: Options) {
    this.options = options;
    // Called as the limiter is made, before the connection is: "ready" loads the scripts then.
    if (this.isConnected()) void this.reload().catch(() => {});
  }

  reload() {
    this.loaded = undefined;
    return this.load();
  }

  private load() {
    this.loaded ??= this.inner
      .init(this.options!)
      .then(() => this.inner.increment(PROBE_KEY))
      .then(
        () => {
          if (this.counting) return;
          this.counting = true;
          warnStoreFailed.reset();
          logger.info("rate limit: counting in Redis");
        },
        (error: unknown) => {
          this.loaded = undefined;
          this.counting = false;
          warnStoreFailed({ err: error });
          throw error;
        },
      );
    return this.loaded;
  }

  increment = (key: string) => this.run(() => this.inner.increment(key));
  decrement = (key: string) => this.run(() => this.inner.decrement(key));
  resetKey = (key: string) => this.run(() => this.inner.resetKey(key));
  get = (key: string) => this.run(() => this.inner.get(key));

  private async run<T>(command: () => Promise<T>) {
    try {
      await this.load();
      return await command();
    } catch (error) {
      this.loaded = undefined;
      this.counting = false;
      this.onError(error);
      throw error;
    }
  }
}
