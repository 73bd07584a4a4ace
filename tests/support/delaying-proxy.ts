import net from "node:net";

export type DelayingProxy = {
  port: number;
  /** How long each chunk waits, either way, before it is passed on. */
  setDelay: (ms: number) => void;
  close: () => Promise<void>;
};

/** A TCP proxy on 127.0.0.1 to `targetPort` that passes every chunk on after a delay: a slow link. */
export async function startDelayingProxy(targetPort: number): Promise<DelayingProxy> {
  let delayMs = 0;
  const sockets = new Set<net.Socket>();
  const pass = (from: net.Socket, to: net.Socket) => {
    from.on("data", (chunk) => void setTimeout(() => to.destroyed || to.write(chunk), delayMs));
    from.on("close", () => void setTimeout(() => to.destroy(), delayMs));
    from.on("error", () => {});
  };
  const server = net.createServer((client) => {
    const target = net.connect(targetPort, "127.0.0.1");
    for (const socket of [client, target]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    pass(client, target);
    pass(target, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    setDelay: (ms) => void (delayMs = ms),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
