import type { Options, Store } from "express-rate-limit";
import type { RedisReply, RedisStore } from "rate-limit-redis";
import { logger } from "~/lib/logger.server";
import { getRedisClientOptions } from "~/lib/redis-options.server";
import { createThrottledWarning } from "~/lib/throttled-warning.server";

// A write waits at most this long on Redis before it goes through uncounted.
const COMMAND_TIMEOUT_MS = 250;

const warnStoreFailed = createThrottledWarning("rate limit: Redis failed, writes go through uncounted");

export type SharedRateLimitStore = Awaited<ReturnType<typeof startSharedRateLimitStore>>;

/**
 * The write limit's count kept in Redis (rate-limit-redis), so every instance sharing
 * `url` counts against one limit; the Redis client is loaded only then. Redis failing never
 * holds or refuses a request: commands are not queued while it is away and time out quickly, the
 * limiter lets the write through (`passOnStoreError`), `onError` counts it, and the log says so
 * at most once a minute. The connection is made in the background and remade after Redis comes
 * back, or at once when a command times out: a connection to a Redis that stopped answering
 * stays open, and would hold every write for the whole timeout. The store's scripts are loaded
 * on each connection and again after any failure (a Redis still loading its data refuses them),
 * and only a load that succeeded is logged as counting.
 */
export async function startSharedRateLimitStore(url: string, onError: () => void) {
  const [{ createClient }, { RedisStore }] = await Promise.all([import("redis"), import("rate-limit-redis")]);
  const connect = () => {
    const created = createClient(getRedisClientOptions(url));
    // The client reports each failed connection attempt here; it keeps trying.
    created.on("error", (error: unknown) => warnStoreFailed({ err: error }));
    created.connect().catch((error: unknown) => warnStoreFailed({ err: error }));
    created.on("ready", () => void store.reload().catch(() => {}));
    return created;
  };
  let client = connect();

  const sendCommand = async (...args: string[]) => {
    const sentOn = client;
    try {
      return await withTimeout(sentOn.sendCommand<RedisReply>(args), COMMAND_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof CommandTimeoutError && sentOn === client && sentOn.isOpen) {
        client = connect();
        sentOn.destroy();
      }
      throw error;
    }
  };
  const failed = (error: unknown) => {
    onError();
    warnStoreFailed({ err: error });
  };
  const store = new ResilientRedisStore(new RedisStore({ sendCommand }), failed, () => client.isReady);
  return {
    store,
    async close() {
      if (client.isOpen) client.destroy();
    },
  };
}

class CommandTimeoutError extends Error {}

// Counted once on each load of the scripts; no client address looks like it.
const PROBE_KEY = "probe:scripts-loaded";

/**
 * The client's own command timeout ends only commands not yet sent; one sent to a Redis that has
 * stopped answering would wait for the socket to die. The reply may still come: it is ignored.
 */
function withTimeout<T>(command: Promise<T>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CommandTimeoutError(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([command, timeout]).finally(() => clearTimeout(timer));
}

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
