import type { Server } from "node:http";
import type { Socket } from "node:net";
import { logger } from "~/lib/logger.server";

type Progress = { sent: number; since: number };

/**
 * Node's timeouts cover a request arriving, not its answer leaving: a client that stops reading
 * keeps its connection, and the answer waiting for it, for as long as it likes. A connection
 * with an answer waiting that has sent nothing more for `timeoutMs` is closed.
 */
export function closeStalledConnections(server: Server, timeoutMs: number) {
  const sockets = new Map<Socket, Progress | null>();
  server.on("connection", (socket: Socket) => {
    sockets.set(socket, null);
    socket.once("close", () => sockets.delete(socket));
  });
  const check = () => {
    const now = performance.now();
    for (const [socket, progress] of sockets) {
      if (socket.writableLength === 0) {
        if (progress) sockets.set(socket, null);
        continue;
      }
      // Bytes whose write has completed: it grows whenever the client takes some of the answer.
      const sent = socket.bytesWritten - socket.writableLength;
      if (progress?.sent !== sent) sockets.set(socket, { sent, since: now });
      else if (now - progress.since >= timeoutMs) {
        logger.info({ timeoutMs }, "closed a connection whose client stopped reading its answer");
        socket.destroy();
      }
    }
  };
  const timer = setInterval(check, Math.min(1_000, timeoutMs / 2)).unref();
  server.once("close", () => clearInterval(timer));
}
