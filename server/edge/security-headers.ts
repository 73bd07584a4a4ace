import { randomFillSync } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import helmet, { type HelmetOptions } from "helmet";
import type { Config } from "~/lib/config.server";
import { REPORTS } from "./report-endpoints";

const NONCE = "{nonce}";
type Directives = NonNullable<
  Exclude<HelmetOptions["contentSecurityPolicy"], boolean>
>["directives"];

/** Security headers on every response, written by helmet once, each with the request's nonce. */
export function createSecurityHeaders(config: Config): RequestHandler {
  // The live-reload socket of `remix dev`.
  const devSockets = ["ws://localhost:*", "ws://127.0.0.1:*"];
  if (config.REMIX_DEV_ORIGIN) devSockets.push(config.REMIX_DEV_ORIGIN.replace(/^http/, "ws"));
  const headers = getSecurityHeaders(config, {
    defaultSrc: ["'self'"],
    scriptSrc: [`'nonce-${NONCE}'`, "'strict-dynamic'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", "data:"],
    connectSrc: ["'self'", ...(config.NODE_ENV === "development" ? devSockets : [])],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    // Signing out posts here, then goes on to the provider's logout page.
    formAction: ["'self'", ...(config.signIn ? [new URL(config.signIn.issuer).origin] : [])],
    frameAncestors: ["'none'"],
    // Browsers with the Reporting API send to the endpoint `report-to` names, others to `report-uri`.
    reportUri: [REPORTS.csp.path],
    reportTo: ["csp"],
  });
  const [name, policy] = headers.find(([name]) => name === "Content-Security-Policy")!;
  const [beforeNonce, afterNonce] = policy.split(NONCE) as [string, string];
  const others = headers.filter((header) => header[0] !== name);
  others.push(["Reporting-Endpoints", `csp="${REPORTS.csp.path}"`]);
  return (_req, res, next) => {
    const nonce = newNonce();
    res.locals.cspNonce = nonce;
    res.setHeader(name, beforeNonce + nonce + afterNonce);
    for (const [header, value] of others) res.setHeader(header, value);
    next();
  };
}

/** The headers of a page that runs nothing and loads nothing: Node's own refusals. */
export const getInertPageHeaders = (config: Config) =>
  getSecurityHeaders(config, {
    defaultSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  });

// What helmet sets, recorded once rather than run for every response.
function getSecurityHeaders(config: Config, directives: Directives) {
  const isHttps = config.ORIGIN?.startsWith("https:") ?? false;
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, value]),
    removeHeader() {},
  };
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { ...directives, ...(isHttps ? { upgradeInsecureRequests: [] } : {}) },
    },
    // Helmet's no-referrer makes Chromium send `Origin: null` on same-origin posts, then refused.
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    strictTransportSecurity: isHttps ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    xFrameOptions: { action: "deny" },
  })({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  return headers;
}

// Drawn from a pool of random bytes: a call to the generator per request costs several times more.
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
