import { logger } from "~/lib/logger.server";
import { getRedisClientOptions } from "~/lib/redis-options.server";
import { loadRedis } from "./libraries.server";
import { StoreUnavailableError } from "./session-store.server";

// A page waits at most this long on Redis before the visitor is told sessions are unavailable.
const COMMAND_TIMEOUT_MS = 1_000;
const WARNING_INTERVAL_MS = 60_000;

/**
 * A node-redis connection for sessions, made in the background. Commands are not queued while
 * Redis is away and each has a deadline; one that misses it replaces the connection, since a
 * frozen Redis keeps its socket open. Every failure is a StoreUnavailableError.
 */
export async function connectSessionRedis(url: string) {
  const { createClient } = await loadRedis();
  let lastWarning = 0;
  const warn = (error: unknown) => {
    if (Date.now() - lastWarning < WARNING_INTERVAL_MS) return;
    lastWarning = Date.now();
    logger.warn({ err: error }, "sessions: Redis failed, signed-in pages answer 503 until it is back");
  };
  const connect = () => {
    const created = createClient(getRedisClientOptions(url));
    created.on("error", warn);
    created.connect().catch(warn);
    return created;
  };
  let client = connect();

  return {
    async command<T>(args: string[]): Promise<T> {
      const sentOn = client;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new StoreUnavailableError("Redis did not answer in time")),
          COMMAND_TIMEOUT_MS,
        );
      });
      try {
        return (await Promise.race([sentOn.sendCommand(args), timeout])) as T;
      } catch (error) {
        warn(error);
        if (error instanceof StoreUnavailableError && sentOn === client && sentOn.isOpen) {
          client = connect();
          sentOn.destroy();
        }
        throw error instanceof StoreUnavailableError
          ? error
          : new StoreUnavailableError("Redis failed", { cause: error });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
