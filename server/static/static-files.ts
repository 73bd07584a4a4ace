import { readdirSync } from "node:fs";
import path from "node:path";
import express, { type RequestHandler, type Response } from "express";
import { getError } from "~/lib/errors";

/** The encodings the build stores beside each text file (precompress.ts), best first. */
export const STORED_ENCODINGS = [
  { encoding: "br", extension: ".br" },
  { encoding: "gzip", extension: ".gz" },
] as const;

const READ_METHODS = new Set(["GET", "HEAD"]);
// Static files share one route label: their paths are many, and not routes.
const STATIC_ROUTE = "static";

/**
 * The files of `publicDir`, listed once at start, so a page costs a lookup, not a file-system
 * call. The browser build under /build is fingerprinted, so cached for a year, and sent as the
 * build stored it compressed (br or gzip, whichever the client takes), never compressed per
 * request; the other files (favicon, robots.txt) are cached for an hour.
 */
export function serveStaticFiles(publicDir: string): RequestHandler {
  const files = listFiles(publicDir);
  const isStored = (file: string) => STORED_ENCODINGS.some(({ extension }) => file.endsWith(extension));
  const buildFiles = new Map(
    [...files]
      .filter((file) => file.startsWith("/build/") && !isStored(file))
      .map((file) => [file, STORED_ENCODINGS.filter(({ extension }) => files.has(file + extension))]),
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
    if (otherFiles.has(req.path)) {
      res.locals.route = STATIC_ROUTE;
      return sendOtherFile(req, res, next);
    }
    // Mounted as Express mounts a path: /BUILD/x.js is /build/x.js.
    if (!/^\/build(\/|$)/i.test(req.path)) return next();
    res.locals.route = STATIC_ROUTE;
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
      // A refusal (412, 416) is the catalogue's page, which is not encoded; a file gone is a miss.
      res.removeHeader("Content-Encoding");
      if (error) next(error);
      else sendPlainNotFound(res);
    });
  };
}

/** Every file under `directory`, as the URL path that names it there. */
function listFiles(directory: string) {
  return new Set(
    readdirSync(directory, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map(
        (entry) =>
          "/" + path.relative(directory, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"),
      ),
  );
}

// A missing asset may be deployed a moment later: no cache may keep its 404.
function sendPlainNotFound(res: Response) {
  res.status(404).set("Cache-Control", "no-store").type("text/plain").send(getError("NOT_FOUND").title);
}
