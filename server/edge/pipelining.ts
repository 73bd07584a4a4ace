import type { RequestListener } from "node:http";
import type { Socket } from "node:net";
import { logger } from "~/lib/logger.server";

// Browsers do not pipeline; a few requests ahead are tolerated for tools that do.
const MAX_PIPELINED = 16;

type Connection = { unanswered: number; waiting: (() => void)[] };

/**
 * Node hands the server every request one read of a connection holds, all at once: 50 KB of
 * pipelined requests is 1,500 of them, seconds of work queued ahead of everyone else's. A
 * connection with more than MAX_PIPELINED requests unanswered is closed; the requests still
 * queued behind it are dropped unanswered, at the cost of one check each. A pipelined request
 * waits until the answer before it has gone, so a client that does not read holds one answer
 * in memory, not every answer it asked for.
 */
export function limitPipelining(listener: RequestListener): RequestListener {
  const connections = new WeakMap<Socket, Connection>();
  return (req, res) => {
    const socket = req.socket;
    if (socket.destroyed) return;
    let connection = connections.get(socket);
    if (!connection) connections.set(socket, (connection = { unanswered: 0, waiting: [] }));
    if (connection.unanswered >= MAX_PIPELINED) {
      logger.info({ limit: MAX_PIPELINED }, "closed a connection pipelining too many requests");
      socket.destroy();
      return;
    }
    connection.unanswered += 1;
    res.once("close", () => {
      connection.unanswered -= 1;
      connection.waiting.shift()?.();
    });
    if (connection.unanswered === 1) return listener(req, res);
    connection.waiting.push(() => {
      if (!socket.destroyed) listener(req, res);
    });
  };
}
