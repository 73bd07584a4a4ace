import type { RequestListener } from "node:http";
import type { Socket } from "node:net";
import { logger } from "~/lib/logger.server";

// Browsers do not pipeline; a few requests ahead are tolerated for tools that do.
const MAX_PIPELINED = 16;

/**
 * Node hands the server every request one read of a connection holds, all at once: 50 KB of
 * pipelined requests is 1,500 of them, seconds of work queued ahead of everyone else's. A
 * connection with more than MAX_PIPELINED requests unanswered is closed; the requests still
 * queued behind it are dropped unanswered, at the cost of one check each.
 */
export function limitPipelining(listener: RequestListener): RequestListener {
  const unanswered = new WeakMap<Socket, number>();
  return (req, res) => {
    const socket = req.socket;
    if (socket.destroyed) return;
    const count = (unanswered.get(socket) ?? 0) + 1;
    if (count > MAX_PIPELINED) {
      logger.info({ limit: MAX_PIPELINED }, "closed a connection pipelining too many requests");
      socket.destroy();
      return;
    }
    unanswered.set(socket, count);
    res.once("close", () => unanswered.set(socket, unanswered.get(socket)! - 1));
    listener(req, res);
  };
}
