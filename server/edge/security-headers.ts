import { randomFillSync } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import helmet from "helmet";
import type { Config } from "~/lib/config.server";

const NONCE = "{nonce}";

/**
 * Security headers on every response, with a Content-Security-Policy whose scripts need this
 * request's nonce. Helmet writes them once, at start; each request sets them with its own nonce.
 */
export function createSecurityHeaders(config: Config): RequestHandler {
  const isHttps = config.ORIGIN?.startsWith("https:") ?? false;
  const devSocket = config.NODE_ENV === "development" ? getDevSocketSources() : [];
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, value]),
    removeHeader() {},
  };
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: [`'nonce-${NONCE}'`, "'strict-dynamic'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'", ...devSocket],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        // Signing out posts here, then goes on to the provider's logout page.
        formAction: ["'self'", ...(config.signIn ? [new URL(config.signIn.issuer).origin] : [])],
        frameAncestors: ["'none'"],
        ...(isHttps ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // Helmet's no-referrer makes Chromium send `Origin: null` on same-origin form posts, which are then refused.
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    strictTransportSecurity: isHttps ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    xFrameOptions: { action: "deny" },
  })({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  const [name, policy] = headers.find(([name]) => name === "Content-Security-Policy")!;
  const [beforeNonce, afterNonce] = policy.split(NONCE) as [string, string];
  const others = headers.filter((header) => header[0] !== name);
  return (_req, res, next) => {
    const nonce = newNonce();
    res.locals.cspNonce = nonce;
    res.setHeader(name, beforeNonce + nonce + afterNonce);
    for (const [header, value] of others) res.setHeader(header, value);
    next();
  };
}

// 128 random bits in base64, drawn from a pool filled a few kilobytes at a time.
const pool = Buffer.alloc(4096);
let used = pool.length;
function newNonce() {
  if (used + 16 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += 16;
  return pool.toString("base64", used - 16, used);
}

// The live-reload socket of `remix dev`.
function getDevSocketSources() {
  const devOrigin = process.env.REMIX_DEV_ORIGIN;
  const sources = ["ws://localhost:*", "ws://127.0.0.1:*"];
  if (devOrigin && URL.canParse(devOrigin)) sources.push(new URL(devOrigin).origin.replace(/^http/, "ws"));
  return sources;
}
