import { domainToUnicode } from "node:url";
import type { Request as ExpressRequest, RequestHandler } from "express";
import type { Config } from "~/lib/config.server";
import { sendErrorPage } from "./error-page";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express types res.locals through this namespace
  namespace Express {
    interface Locals {
      /** The origin this request is answered for, decided once by the edge. */
      origin: string;
    }
  }
}

// A DNS name, an IPv4 address or a bracketed IPv6 address, with an optional port.
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

// Load balancers and orchestrators probe the instance by its own address.
const PROBE_PATHS = new Set(["/healthz", "/readyz"]);

/**
 * Decides the request's origin once, for everything after it (the cross-site check, the URL
 * Remix sees): the scheme and host the request came with (`X-Forwarded-Proto`/`-Host` only
 * with TRUST_PROXY), kept only when they make a URL that writes them back exactly as sent;
 * anything else is a 400. With ORIGIN set that is the origin, and a request for another host
 * is refused, probes apart.
 */
export function createRequestOrigin(config: Config): RequestHandler {
  const own = config.ORIGIN ? new URL(config.ORIGIN) : null;
  return (req, res, next) => {
    const scheme = own ? own.protocol.slice(0, -1) : req.protocol;
    const origin = parseOrigin(scheme, getRequestHost(req, config));
    const isOwnHost = !own || origin === own.origin || PROBE_PATHS.has(req.path);
    if (!origin || !isOwnHost || !["http", "https"].includes(req.protocol)) {
      return sendErrorPage(res, "BAD_REQUEST");
    }
    res.locals.origin = own?.origin ?? origin;
    next();
  };
}

// With TRUST_PROXY, X-Forwarded-Host is the proxy's own word (its first entry) on the public host.
function getRequestHost(req: ExpressRequest, config: Config) {
  const forwarded = config.TRUST_PROXY ? req.get("x-forwarded-host") : undefined;
  return forwarded === undefined ? req.headers.host : forwarded.split(",")[0]!.trim();
}

/** `scheme://host` as a browser writes it, or null unless it parses back to the same host. */
export function parseOrigin(scheme: string, host: string | undefined) {
  if (!host || !HOST.test(host)) return null;
  const candidate = `${scheme}://${host.toLowerCase()}`;
  if (!URL.canParse(candidate)) return null;
  const url = new URL(candidate);
  const defaultPort = scheme === "https" ? ":443" : ":80";
  const sent = host.toLowerCase();
  const isSameHost = url.host === sent || url.host + defaultPort === sent;
  return isSameHost && !hasUndecodableLabel(url.hostname) ? url.origin : null;
}

// Node 24's URL parser keeps a label that claims to be punycode ("xn--a") without decoding it,
// where Node 20's refuses it; such a name cannot be anyone's host.
function hasUndecodableLabel(hostname: string) {
  return hostname.split(".").some((label) => {
    if (!label.startsWith("xn--")) return false;
    const decoded = domainToUnicode(label);
    return decoded === "" || decoded.startsWith("xn--");
  });
}
