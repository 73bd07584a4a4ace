import { getRedisClientOptions } from "~/lib/redis-options.server";
import { createThrottledWarning } from "~/lib/throttled-warning.server";
import { loadRedis } from "./libraries.server";
import { StoreUnavailableError } from "./session-store.server";

// A page waits at most this long on Redis, its connection included, before the visitor is told
// sessions are unavailable.
const COMMAND_TIMEOUT_MS = 1_000;

const warnRedisFailed = createThrottledWarning(
  "sessions: Redis failed, signed-in pages answer 503 until it is back",
);

/**
 * A node-redis connection for sessions, made in the background. A command waits for the
 * connection (a fresh instance's first visitors included) but is never queued on a connection
 * that is down; each has a deadline, and one that misses it replaces the connection, since a
 * frozen Redis keeps its socket open. Every failure is a StoreUnavailableError.
 */
export async function connectSessionRedis(url: string) {
  const { createClient } = await loadRedis();
  let hasConnected = false;
  const connect = () => {
    const created = createClient(getRedisClientOptions(url));
    created.on("error", (error: unknown) => warnRedisFailed({ err: error }));
    created.on("ready", () => {
      hasConnected = true;
      warnRedisFailed.reset();
    });
    created.connect().catch((error: unknown) => warnRedisFailed({ err: error }));
    return created;
  };
  let client = connect();

  // One wait per connection for all the commands sent while it opens.
  const openings = new WeakMap<typeof client, Promise<void>>();
  const whenReady = (connection: typeof client) => {
    if (connection.isReady) return Promise.resolve();
    let opening = openings.get(connection);
    if (!opening) {
      opening = new Promise<void>((resolve) => connection.once("ready", resolve));
      openings.set(connection, opening);
      void opening.then(() => openings.delete(connection));
    }
    return opening;
  };

  return {
    /** Whether a connection has been made since the start: until then the instance is not ready. */
    hasConnected: () => hasConnected,
    async command<T>(args: string[]): Promise<T> {
      const sentOn = client;
      let timer: NodeJS.Timeout | undefined;
      let timedOut = false;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(new StoreUnavailableError("Redis did not answer in time"));
        }, COMMAND_TIMEOUT_MS);
      });
      // A command whose wait ran out is not sent late, once the connection opens.
      const sent = whenReady(sentOn).then(() => (timedOut ? timeout : sentOn.sendCommand(args)));
      try {
        return (await Promise.race([sent, timeout])) as T;
      } catch (error) {
        warnRedisFailed({ err: error });
        if (error instanceof StoreUnavailableError && sentOn === client && sentOn.isReady) {
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
