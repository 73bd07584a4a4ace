import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Response as ExpressResponse, RequestHandler } from "express";
import helmet from "helmet";
import type { Config } from "~/lib/config.server";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express types res.locals through this namespace
  namespace Express {
    interface Locals {
      cspNonce: string;
    }
  }
}

/**
 * Security headers for every response, error pages and static files included: an enforced
 * Content-Security-Policy whose scripts need this request's nonce (Remix renders it onto its
 * inline scripts through the load context).
 */
export function createSecurityHeaders(config: Config): RequestHandler[] {
  const isHttps = config.ORIGIN?.startsWith("https:") ?? false;
  const devSocket = config.NODE_ENV === "development" ? getDevSocketSources() : [];
  const nonce = (_req: IncomingMessage, res: ServerResponse) =>
    `'nonce-${(res as ExpressResponse).locals.cspNonce}'`;
  return [
    (_req, res, next) => {
      res.locals.cspNonce = randomBytes(16).toString("base64");
      next();
    },
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: [nonce, "'strict-dynamic'"],
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
      // Helmet's default, no-referrer, makes Chromium send `Origin: null` on same-origin form
      // posts, which the cross-site check has to refuse.
      referrerPolicy: { policy: "strict-origin-when-cross-origin" },
      strictTransportSecurity: isHttps ? { maxAge: 31_536_000, includeSubDomains: true } : false,
      xFrameOptions: { action: "deny" },
    }),
  ];
}

// The live-reload socket of `remix dev`.
function getDevSocketSources() {
  const devOrigin = process.env.REMIX_DEV_ORIGIN;
  const sources = ["ws://localhost:*", "ws://127.0.0.1:*"];
  if (devOrigin && URL.canParse(devOrigin)) sources.push(new URL(devOrigin).origin.replace(/^http/, "ws"));
  return sources;
}
