import { readdirSync } from "node:fs";
import path from "node:path";
import express, { type RequestHandler } from "express";
import { getError } from "~/lib/errors";

/** The encodings the build stores beside each text file (precompress.ts), best first. */
export const STORED_ENCODINGS = [
  { encoding: "br", extension: ".br" },
  { encoding: "gzip", extension: ".gz" },
] as const;

type Encoding = (typeof STORED_ENCODINGS)[number];

const READ_METHODS = new Set(["GET", "HEAD"]);

// Static files share one route label: their paths are many, and not routes.
const STATIC_ROUTE = "static";

/**
 * The browser build under /build. Fingerprinted by the build, so they never change: cached for a
 * year. A file is sent as the build stored it, compressed once (br or gzip, whichever the client
 * takes), never compressed per request. The files are listed once at start, so a miss costs a
 * map lookup rather than a file-system call.
 */
export function serveBuildFiles(buildDir: string): RequestHandler {
  const files = listFiles(buildDir);
  const storedEncodings = new Map(
    [...files]
      .filter((file) => !STORED_ENCODINGS.some(({ extension }) => file.endsWith(extension)))
      .map((file) => [file, STORED_ENCODINGS.filter(({ extension }) => files.has(file + extension))]),
  );
  const serveStatic = express.static(buildDir, {
    immutable: true,
    maxAge: "1y",
    index: false,
    redirect: false,
  });
  return (req, res, next) => {
    res.locals.route = STATIC_ROUTE;
    const encodings = storedEncodings.get(req.path);
    if (encodings === undefined || !READ_METHODS.has(req.method)) return sendPlainNotFound(res);
    if (encodings.length > 0) {
      res.vary("Accept-Encoding");
      const stored = encodings.find(({ encoding }) => req.acceptsEncodings(encoding) === encoding);
      if (stored) {
        res.type(path.extname(req.path)).set("Content-Encoding", stored.encoding);
        req.url = withExtension(req.url, req.path, stored);
      }
    }
    serveStatic(req, res, (error?: unknown) => {
      // A refusal (412, 416) is the catalogue's page, which is not encoded; a file gone is a miss.
      res.removeHeader("Content-Encoding");
      if (error) next(error);
      else sendPlainNotFound(res);
    });
  };
}

/**
 * Other public files (favicon, robots.txt ...) with a short cache. They are listed once at
 * start, so a page request costs a set lookup rather than a file-system call; files are deployed
 * with the build, and a new one is served after a restart.
 */
export function servePublicFiles(publicDir: string): RequestHandler {
  const files = new Set([...listFiles(publicDir)].filter((urlPath) => !urlPath.startsWith("/build/")));
  const serveStatic = express.static(publicDir, { maxAge: "1h", index: false, redirect: false });
  return (req, res, next) => {
    if (!files.has(req.path)) return next();
    res.locals.route = STATIC_ROUTE;
    serveStatic(req, res, next);
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

const withExtension = (url: string, urlPath: string, { extension }: Encoding) =>
  urlPath + extension + url.slice(urlPath.length);

// A missing asset may be deployed a moment later: no cache may keep its 404.
function sendPlainNotFound(res: express.Response) {
  res.status(404).set("Cache-Control", "no-store").type("text/plain").send(getError("NOT_FOUND").title);
}
