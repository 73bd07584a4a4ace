import net from "node:net";

export type DelayingProxy = {
  port: number;
  /** How long each chunk waits, either way, before it is passed on. */
  setDelay: (ms: number) => void;
  /** Holds every chunk from now on, either way, until `release`: a link that has not opened yet. */
  hold: () => void;
  release: () => void;
  /** Resolves when a client has connected (at once if one already has). */
  connected: () => Promise<void>;
  connections: () => number;
  close: () => Promise<void>;
};

/** A slow link: a TCP proxy to a loopback port or Unix socket that delays every chunk. */
export async function startDelayingProxy(
  target: { port: number } | { path: string },
): Promise<DelayingProxy> {
  let delayMs = 0;
  let held: (() => void)[] | null = null;
  let connections = 0;
  let onConnection: (() => void)[] = [];
  const sockets = new Set<net.Socket>();
  const later = (send: () => void) => (held ? held.push(send) : void setTimeout(send, delayMs));
  const pass = (from: net.Socket, to: net.Socket) => {
    from.on("data", (chunk) => later(() => to.destroyed || to.write(chunk)));
    from.on("close", () => later(() => to.destroy()));
    from.on("error", () => {});
  };
  const server = net.createServer((client) => {
    const upstream = net.connect("path" in target ? target : { ...target, host: "127.0.0.1" });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    pass(client, upstream);
    pass(upstream, client);
    connections++;
    onConnection.forEach((resolve) => resolve());
    onConnection = [];
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    setDelay: (ms) => void (delayMs = ms),
    hold: () => void (held ??= []),
    release: () => {
      const sends = held ?? [];
      held = null;
      sends.forEach((send) => send());
    },
    connected: () =>
      connections > 0 ? Promise.resolve() : new Promise((resolve) => onConnection.push(resolve)),
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
