import { readdirSync } from "node:fs";
import path from "node:path";
import express, { type RequestHandler, type Response } from "express";
import type { Config } from "~/lib/config.server";
import type { AppEntry } from "../app";
import { shellMessages } from "~/i18n/messages.server";

/** The encodings the build stores beside each text file, best first. */
export const STORED_ENCODINGS = [
  { encoding: "br", extension: ".br" },
  { encoding: "gzip", extension: ".gz" },
] as const;

const READ_METHODS = new Set(["GET", "HEAD"]);
const SECURITY_TXT_EXPIRED = "security.txt expired, now a 404: renew SECURITY_TXT_EXPIRES";

/** The security.txt (RFC 9116) of the configuration, or null when it is off (a 404 then). */
export function renderSecurityTxt({ securityTxt }: Config) {
  if (!securityTxt) return null;
  const { contact, expires, policy, canonical } = securityTxt;
  const fields = [
    ...contact.map((uri) => ["Contact", uri]),
    ["Expires", expires.toISOString()],
    ...(policy ? [["Policy", policy]] : []),
    ...(canonical ? [["Canonical", canonical]] : []),
  ];
  return fields.map(([name, value]) => `${name}: ${value}\n`).join("");
}

/**
 * The files of `publicDir`, listed at start, and the security.txt; the fingerprinted build's sent
 * as it stored them compressed (decision 015).
 */
export function serveStaticFiles(
  publicDir: string,
  config: Config,
  logger: AppEntry["logger"],
): RequestHandler {
  const securityTxt = renderSecurityTxt(config);
  const expires = config.securityTxt?.expires.getTime() ?? 0;
  let warned = false;
  const files = listFiles(publicDir);
  const isStored = (file: string) =>
    STORED_ENCODINGS.some(({ extension }) => file.endsWith(extension));
  const buildFiles = new Map(
    [...files]
      .filter((file) => file.startsWith("/build/") && !isStored(file))
      .map((file) => [
        file,
        STORED_ENCODINGS.filter(({ extension }) => files.has(file + extension)),
      ]),
  );
  const otherFiles = new Set([...files].filter((file) => !file.startsWith("/build/")));
  const sendBuildFile = express.static(publicDir, {
    immutable: true,
    maxAge: "1y",
    index: false,
    redirect: false,
  });
  const sendOtherFile = express.static(publicDir, { maxAge: "1h", index: false, redirect: false });

  return (req, res, next) => {
    if (securityTxt && req.path === "/.well-known/security.txt" && READ_METHODS.has(req.method)) {
      // Stale, it would point reporters at a contact no longer kept: the 404 page, as when unset.
      const left = expires - Date.now();
      if (left <= 0) {
        if (!warned) logger.warn({ expires: new Date(expires) }, SECURITY_TXT_EXPIRED);
        warned = true;
        return next();
      }
      res.locals.route = "static";
      return void res
        .type("text/plain; charset=utf-8")
        .set("Cache-Control", `public, max-age=${Math.min(3600, Math.floor(left / 1000))}`)
        .send(securityTxt);
    }
    if (otherFiles.has(req.path)) {
      res.locals.route = "static";
      return sendOtherFile(req, res, next);
    }
    if (!/^\/build(\/|$)/i.test(req.path)) return next();
    res.locals.route = "static";
    const file = `/build${req.path.slice(6)}`;
    const encodings = buildFiles.get(file);
    if (encodings === undefined || !READ_METHODS.has(req.method)) return sendPlainNotFound(res);
    let target = file;
    if (encodings.length > 0) {
      res.vary("Accept-Encoding");
      const stored = encodings.find(({ encoding }) => req.acceptsEncodings(encoding) === encoding);
      if (stored) {
        res.type(path.extname(file)).set("Content-Encoding", stored.encoding);
        target += stored.extension;
      }
    }
    req.url = target + req.url.slice(req.path.length);
    sendBuildFile(req, res, (error?: unknown) => {
      res.removeHeader("Content-Encoding");
      if (error) next(error);
      else sendPlainNotFound(res);
    });
  };
}

function listFiles(directory: string) {
  return new Set(
    readdirSync(directory, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map(
        (entry) =>
          "/" +
          path
            .relative(directory, path.join(entry.parentPath, entry.name))
            .split(path.sep)
            .join("/"),
      ),
  );
}

// A missing asset may be deployed a moment later.
function sendPlainNotFound(res: Response) {
  res
    .status(404)
    .set("Cache-Control", "no-store")
    .type("text/plain")
    .send(shellMessages.en["errors.NOT_FOUND.title"]);
}
