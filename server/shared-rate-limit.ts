import type { Options as RateLimitOptions } from "express-rate-limit";
import type { Config } from "~/lib/config.server";
import { logger } from "~/lib/logger.server";
import { createThrottledWarning } from "./throttled-warning";

// The longest a write waits on Redis before it passes uncounted (Redis answers in about 1 ms).
const COMMAND_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 2_000;
// Commands waiting on a Redis that stopped answering are refused beyond this many.
const MAX_WAITING_COMMANDS = 1_000;
// An id no script has: Redis answers NOSCRIPT, and the store loads its script then.
const NOT_LOADED = "0".repeat(40);

class CommandTimeoutError extends Error {
  constructor() {
    super(`Redis did not answer within ${COMMAND_TIMEOUT_MS} ms`);
  }
}

// Thrown to express-rate-limit once a store error has been counted and warned about.
const PASSED_UNCOUNTED = new Error("rate limit store unavailable: the write passed uncounted");

export type SharedRateLimit = {
  /** The limiter's options that count in Redis and let writes pass while it is unreachable. */
  options: Partial<RateLimitOptions>;
  close(): void;
};

/**
 * Counts the write limit in the Redis at RATE_LIMIT_REDIS_URL, shared by every instance, or
 * returns undefined, having loaded nothing, when it is unset. Nothing waits for Redis to come up.
 * While it is unreachable a write passes uncounted at once: the client queues nothing while
 * offline, a command waits COMMAND_TIMEOUT_MS at most, and a timeout replaces the connection
 * (a half-open one would make every write wait). `onStoreError` hears each write that passed so.
 */
export async function startSharedRateLimit(
  config: Config,
  onStoreError: () => void,
): Promise<SharedRateLimit | undefined> {
  const url = config.RATE_LIMIT_REDIS_URL;
  if (!url) return undefined;
  const [{ createClient }, { RedisStore }] = await Promise.all([
    import("@redis/client"),
    import("rate-limit-redis"),
  ]);
  const warn = createThrottledWarning("rate limit: Redis unavailable, writes pass uncounted");

  const connect = () => {
    const client = createClient({
      url,
      disableOfflineQueue: true,
      commandsQueueMaxLength: MAX_WAITING_COMMANDS,
      socket: { connectTimeout: CONNECT_TIMEOUT_MS },
    });
    client.on("error", warn);
    client.on("ready", () => logger.info("rate limit: counting writes in Redis"));
    // It keeps reconnecting in the background until it is closed.
    client.connect().catch(() => {});
    return client;
  };
  let client = connect();

  const sendCommand = async (...args: string[]) => {
    const used = client;
    try {
      return await withTimeout(used.sendCommand<string | number | string[]>(args));
    } catch (error) {
      if (error instanceof CommandTimeoutError && used === client && used.isOpen) {
        client = connect();
        used.destroy();
      }
      throw error;
    }
  };

  class SharedStore extends RedisStore {
    // A script that failed to load (Redis down at start, or gone again) is loaded on the next
    // write instead of failing every write until a restart.
    override loadIncrementScript(key?: string) {
      return super.loadIncrementScript(key).catch(() => NOT_LOADED);
    }
    override loadGetScript(key?: string) {
      return super.loadGetScript(key).catch(() => NOT_LOADED);
    }
    override async increment(key: string) {
      try {
        return await super.increment(key);
      } catch (error) {
        onStoreError();
        warn(error);
        throw PASSED_UNCOUNTED;
      }
    }
  }

  return {
    options: {
      store: new SharedStore({ sendCommand, prefix: "rate-limit:writes:" }),
      passOnStoreError: true,
      logger: {
        warn: (message: unknown) => logger.warn({ detail: message }, "rate limit"),
        error: (error: unknown) => {
          if (error !== PASSED_UNCOUNTED) logger.error({ err: error }, "rate limit");
        },
      },
    },
    close: () => {
      if (client.isOpen) client.destroy();
    },
  };
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CommandTimeoutError()), COMMAND_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
