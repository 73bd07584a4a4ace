import type { Options, Store } from "express-rate-limit";
import { RedisStore } from "rate-limit-redis";
import { createClient } from "redis";
import { logger } from "~/lib/logger.server";
import { createThrottledWarning } from "./throttled-warning";

// A write waits at most this long on Redis before it goes through uncounted.
const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 1_000;
const MAX_RECONNECT_DELAY_MS = 2_000;

const warnStoreFailed = createThrottledWarning("rate limit: Redis failed, writes go through uncounted");

/**
 * The write limit's count kept in Redis (rate-limit-redis), so every instance sharing
 * `url` counts against one limit. Redis failing never holds or refuses a request: commands are
 * not queued while it is away and time out quickly, the limiter lets the write through
 * (`passOnStoreError`), `onError` counts it, and the log says so at most once a minute. The
 * connection is made in the background and remade after Redis comes back.
 */
export function createSharedRateLimitStore(url: string, onError: () => void) {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, MAX_RECONNECT_DELAY_MS),
    },
  });
  const failed = (error: unknown) => {
    onError();
    warnStoreFailed({ err: error });
  };
  // The client reports each failed connection attempt here; it keeps trying.
  client.on("error", (error: unknown) => warnStoreFailed({ err: error }));
  client.connect().catch((error: unknown) => warnStoreFailed({ err: error }));
  const store = new ResilientRedisStore(
    new RedisStore({
      sendCommand: (...args: string[]) => withTimeout(client.sendCommand(args), COMMAND_TIMEOUT_MS),
    }),
    failed,
  );
  // The store's scripts are loaded into Redis when it is reached, and again after each reconnect.
  client.on("ready", () => {
    logger.info("rate limit: counting in Redis");
    store.load();
  });
  return {
    store,
    async close() {
      client.destroy();
    },
  };
}

/**
 * The client's own command timeout ends only commands not yet sent; one sent to a Redis that has
 * stopped answering would wait for the socket to die. The reply may still come: it is ignored.
 */
function withTimeout<T>(command: Promise<T>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([command, timeout]).finally(() => clearTimeout(timer));
}

/** rate-limit-redis, with every failure reported and its scripts reloaded when Redis returns. */
class ResilientRedisStore implements Store {
  private options?: Options;

  constructor(
    private readonly inner: RedisStore,
    private readonly onError: (error: unknown) => void,
  ) {}

  init(options: Options) {
    this.options = options;
    this.load();
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
