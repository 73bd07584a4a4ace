import type { Options, Store } from "express-rate-limit";
import type { RedisReply, RedisStore } from "rate-limit-redis";
import { logger } from "~/lib/logger.server";
import { connectRedis } from "~/lib/redis.server";
import { createThrottledWarning } from "~/lib/logger.server";

const warnStoreFailed = createThrottledWarning("rate limit: Redis failed, writes go through uncounted");

export type SharedRateLimitStore = Awaited<ReturnType<typeof startSharedRateLimitStore>>;

/**
 * The write limit's count kept in Redis (rate-limit-redis), so every instance sharing `url` counts
 * against one limit. Redis failing never holds a write for long nor refuses it: the limiter lets it
 * through (`passOnStoreError`) and `onError` counts it. The scripts are loaded on each connection
 * and again after any failure, and only a load that succeeded is logged as counting.
 */
export async function startSharedRateLimitStore(url: string, onError: () => void) {
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
  const store = new ResilientRedisStore(
    new RedisStore({ sendCommand: (...args: string[]) => redis.command<RedisReply>(args) }),
    failed,
    redis.isReady,
  );
  return { store, close: async () => redis.close() };
}

// Counted once on each load of the scripts; no client address looks like it.
const PROBE_KEY = "probe:scripts-loaded";

/**
 * rate-limit-redis, with every failure reported. rate-limit-redis keeps a failed script load for
 * good, so every write would fail from then on: here a failure of any kind drops the loaded
 * scripts, and the next command loads them first (one load, shared by the writes waiting on it).
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

  /** Loads the scripts into the Redis just reached, whatever was loaded before. */
  reload() {
    this.loaded = undefined;
    return this.load();
  }

  /**
   * Loads the scripts and counts one write under PROBE_KEY: a Redis that takes the scripts but
   * refuses writes (a replica, out of memory, a failed save) is not counting.
   */
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

  increment(key: string) {
    return this.run(() => this.inner.increment(key));
  }

  decrement(key: string) {
    return this.run(() => this.inner.decrement(key));
  }

  resetKey(key: string) {
    return this.run(() => this.inner.resetKey(key));
  }

  get(key: string) {
    return this.run(() => this.inner.get(key));
  }

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
