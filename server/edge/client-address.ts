import { isIP } from "node:net";
import type { Request } from "express";

const WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED = /^\[([^\]]+)\](?::\d{1,5})?$/;
const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * An address as some proxies and load balancers write it (`198.51.100.9:4711`, `[2001:db8::1]:80`,
 * `::ffff:198.51.100.9`) reduced to the address alone; undefined when it is no address at all.
 */
export function normaliseAddress(value: string | undefined) {
  const trimmed = value?.trim() ?? "";
  const address = BRACKETED.exec(trimmed)?.[1] ?? WITH_PORT.exec(trimmed)?.[1] ?? trimmed;
  if (!isIP(address)) return undefined;
  return MAPPED_IPV4.exec(address)?.[1] ?? address.toLowerCase();
}

/**
 * The client's address: the one the trusted proxy forwarded (Express's `req.ip` under
 * TRUST_PROXY), else the connection's, which is also used when the forwarded value is no address.
 */
export function getClientAddress(req: Request) {
  return normaliseAddress(req.ip) ?? normaliseAddress(req.socket.remoteAddress) ?? "unknown";
}
