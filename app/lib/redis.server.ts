import type { createThrottledWarning } from "./logger.server";

type Options = {
  timeoutMs: number;
  /** Whether a command waits for a connection being made, rather than failing at once. */
  waitForConnection: boolean;
  warn: ReturnType<typeof createThrottledWarning>;
  onReady?: () => void;
};

export class RedisUnavailableError extends Error {
  name = "RedisUnavailableError";
}

export type RedisConnection = Awaited<ReturnType<typeof connectRedis>>;

/** A Redis never waited on for long: each command has a deadline, and missing it replaces the connection. */
export async function connectRedis(
  url: string,
  { timeoutMs, waitForConnection, warn, onReady }: Options,
) {
  const { createClient } = await import("redis");
  let hasConnected = false;
  let opening: Promise<void> | undefined;
  const connect = () => {
    const created = createClient({
      url,
      disableOfflineQueue: true,
      commandsQueueMaxLength: 1_000,
      socket: {
        connectTimeout: 1_000,
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000),
      },
    });
    created.on("error", (error: unknown) => warn({ err: error }));
    created.on("ready", () => {
      hasConnected = true;
      onReady?.();
    });
    created.connect().catch((error: unknown) => warn({ err: error }));
    opening = undefined;
    return created;
  };
  let client = connect();
  // One wait for all the commands sent while the connection opens.
  const whenReady = (connection: typeof client) => {
    if (connection.isReady || !waitForConnection) return Promise.resolve();
    opening ??= new Promise<void>((resolve) => connection.once("ready", resolve)).finally(
      () => (opening = undefined),
    );
    return opening;
  };

  return {
    hasConnected: () => hasConnected,
    isReady: () => client.isReady,
    close: () => void (client.isOpen && client.destroy()),
    async command<T>(args: string[]): Promise<T> {
      const sentOn = client;
      let timer: NodeJS.Timeout | undefined;
      let timedOut = false;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(new RedisUnavailableError(`Redis did not answer within ${timeoutMs} ms`));
        }, timeoutMs);
      });
      // A command whose wait ran out is not sent late, once the connection opens.
      const sent = whenReady(sentOn).then(() => (timedOut ? timeout : sentOn.sendCommand(args)));
      try {
        return (await Promise.race([sent, timeout])) as T;
      } catch (error) {
        warn({ err: error });
        if (timedOut && sentOn === client && sentOn.isReady) {
          client = connect();
          sentOn.destroy();
        }
        throw error instanceof RedisUnavailableError
          ? error
          : new RedisUnavailableError("Redis failed", { cause: error });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
