import type { Options, Store } from "express-rate-limit";
import type { RedisReply, RedisStore } from "rate-limit-redis";
import { logger } from "~/lib/logger.server";
import { getRedisClientOptions } from "~/lib/redis-options.server";
import { createThrottledWarning } from "../observability/throttled-warning";

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
 * stays open, and would hold every write for the whole timeout.
 */
export async function startSharedRateLimitStore(url: string, onError: () => void) {
  const [{ createClient }, { RedisStore }] = await Promise.all([import("redis"), import("rate-limit-redis")]);
  const connect = () => {
    const created = createClient(getRedisClientOptions(url));
    // The client reports each failed connection attempt here; it keeps trying.
    created.on("error", (error: unknown) => warnStoreFailed({ err: error }));
    created.connect().catch((error: unknown) => warnStoreFailed({ err: error }));
    // The store's scripts are loaded into Redis when it is reached, and again after each reconnect.
    created.on("ready", () => {
      logger.info("rate limit: counting in Redis");
      store.load();
    });
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

/** rate-limit-redis, with every failure reported and its scripts reloaded when Redis returns. */
class ResilientRedisStore implements Store {
  private options?: Options;

  constructor(
    private readonly inner: RedisStore,
    private readonly onError: (error: unknown) => void,
    private readonly isConnected: () => boolean,
  ) {}

  init(options: Options) {
    this.options = options;
    // Called as the limiter is made, before the connection is: "ready" loads the scripts then.
    if (this.isConnected()) this.load();
  }

  load() {
    if (this.options)
      this.inner.init(this.options).catch((error: unknown) => warnStoreFailed({ err: error }));
  }

  increment(key: string) {
    return this.report(this.inner.increment(key));
  }

  decrement(key: string) {
    return this.report(this.inner.decrement(key));
  }

  resetKey(key: string) {
    return this.report(this.inner.resetKey(key));
  }

  get(key: string) {
    return this.report(this.inner.get(key));
  }

  private async report<T>(result: Promise<T>) {
    try {
      return await result;
    } catch (error) {
      this.onError(error);
      throw error;
    }
  }
}
