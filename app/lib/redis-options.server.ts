const CONNECT_TIMEOUT_MS = 1_000;
const MAX_RECONNECT_DELAY_MS = 2_000;
// Commands sent to a Redis that stopped answering are refused at once beyond this many.
const MAX_WAITING_COMMANDS = 1_000;

/**
 * node-redis options for a Redis the app must never wait on: commands are not queued while it is
 * away, a connection attempt gives up quickly, and reconnecting backs off to at most 2 s.
 */
export function getRedisClientOptions(url: string) {
  return {
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: MAX_WAITING_COMMANDS,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, MAX_RECONNECT_DELAY_MS),
    },
  };
}
