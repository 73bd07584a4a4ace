import express, { type Request, type RequestHandler, type Response } from "express";
import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import type { ErrorCode } from "~/lib/errors";
import { WEB_VITALS_PATH } from "~/lib/constants";
import type { AppEntry } from "../app";
import { sendErrorPage } from "./error-page";
import { limitWrites } from "./rate-limit";

/** Where browsers send the violations of the Content-Security-Policy (`report-uri` and `report-to`). */
export const CSP_REPORT_PATH = "/__reports/csp";
export const REPORT_PATHS = new Set([CSP_REPORT_PATH, WEB_VITALS_PATH]);

// Reports a client may send a minute, each endpoint counting apart; a page that hits it loses some.
const REPORTS_PER_MINUTE = 60;
// A batch of the Reporting API holds one report per violation: past this many, the rest are dropped.
const MAX_REPORTS_PER_BATCH = 32;
const CSP_TYPES = ["application/csp-report", "application/reports+json"];
const CSP_MAX_BYTES = 64 * 1024;
const VITALS_MAX_BYTES = 1_024;

// Each vital's unit (ms, or none for CLS) and the largest value a page can really have.
export const VITALS = { LCP: 120_000, INP: 120_000, FCP: 120_000, TTFB: 120_000, CLS: 50 } as const;
export type VitalName = keyof typeof VITALS;
const NUMBER = /^\d+(\.\d+)?(e[+-]?\d+)?$/i;

const DIRECTIVES = new Set(
  `default-src script-src script-src-elem script-src-attr style-src style-src-elem style-src-attr
  img-src font-src connect-src media-src object-src frame-src child-src worker-src manifest-src
  base-uri form-action frame-ancestors require-trusted-types-for trusted-types sandbox
  upgrade-insecure-requests fenced-frame-src`.split(/\s+/),
);
const BLOCKED_KEYWORDS = new Set([
  "inline",
  "eval",
  "wasm-eval",
  "trusted-types-policy",
  "trusted-types-sink",
]);

export type ReportEndpoint = "csp" | "vitals";

/** What the endpoints record: the metrics when METRICS_PORT is set. */
export type ReportSink = {
  countViolation: (directive: string, blocked: string) => void;
  observeVitals: (route: string, values: [VitalName, number][]) => void;
  countRefused: (endpoint: ReportEndpoint, reason: string) => void;
};

type Violation = Record<string, unknown>;

/**
 * POST /__reports/csp and /__reports/vitals, after the edge's checks: each with its body types, a
 * small body and a rate of its own. A violation is counted and logged without any query string or
 * fragment; web vitals are refused for an unknown route or a value no page can have.
 */
export function createReportEndpoints(
  config: Config,
  build: ServerBuild,
  sink?: ReportSink,
): RequestHandler {
  const { logger } = build.entry.module as unknown as AppEntry;
  const routeIds = new Set(Object.keys(build.routes));
  const knownOrigins = new Set([config.signIn ? new URL(config.signIn.issuer).origin : ""]);
  const readViolations = express.json({ type: CSP_TYPES, limit: CSP_MAX_BYTES, inflate: false });
  const readVitals = express.urlencoded({
    limit: VITALS_MAX_BYTES,
    extended: false,
    parameterLimit: Object.keys(VITALS).length + 1,
    inflate: false,
  });
  const limits = {
    csp: limitWrites(REPORTS_PER_MINUTE, undefined, () =>
      sink?.countRefused("csp", "rate_limited"),
    ),
    vitals: limitWrites(REPORTS_PER_MINUTE, undefined, () =>
      sink?.countRefused("vitals", "rate_limited"),
    ),
  };

  function acceptViolations(req: Request, res: Response) {
    const body: unknown = req.body;
    const reports = Array.isArray(body)
      ? body
          .filter((report: Violation | null) => report?.type === "csp-violation")
          .map((report: Violation) => report.body as Violation | null)
      : [(body as Violation | null)?.["csp-report"] as Violation | null];
    const violations = reports.filter(
      (report): report is Violation =>
        typeof report === "object" && report !== null && !Array.isArray(report),
    );
    if (violations.length < reports.length) return refuse(res, "csp", "malformed");
    // One line a report, however many violations it holds: what a visitor sends never multiplies.
    const logged = violations.slice(0, MAX_REPORTS_PER_BATCH).map((report) => {
      const directive = readDirective(
        report["effectiveDirective"] ?? report["effective-directive"],
      );
      const blockedUrl = report["blockedURL"] ?? report["blocked-uri"];
      const blocked = labelBlocked(blockedUrl, res.locals.origin as string, knownOrigins);
      sink?.countViolation(directive, blocked);
      return {
        directive,
        blocked: BLOCKED_KEYWORDS.has(blocked) ? blocked : withoutPath(blockedUrl),
        document: withoutQuery(report["documentURL"] ?? report["document-uri"]),
        source: withoutQuery(report["sourceFile"] ?? report["source-file"]),
        line: asNumber(report["lineNumber"] ?? report["line-number"]),
        disposition: report["disposition"] === "report" ? "report" : "enforce",
      };
    });
    if (logged.length > 0)
      logger.info(
        {
          requestId: res.getHeader("X-Request-Id"),
          violations: logged,
          dropped: violations.length - logged.length,
        },
        "content security policy violation",
      );
    res.status(204).set("Cache-Control", "no-store").end();
  }

  function acceptVitals(req: Request, res: Response) {
    const { route, ...fields } = req.body as Record<string, unknown>;
    if (typeof route !== "string" || !routeIds.has(route))
      return refuse(res, "vitals", "unknown_route");
    const values: [VitalName, number][] = [];
    for (const [name, text] of Object.entries(fields)) {
      if (!(name in VITALS) || typeof text !== "string") return refuse(res, "vitals", "malformed");
      const value = Number(text);
      const max = VITALS[name as VitalName];
      if (!NUMBER.test(text) || !(value <= max)) return refuse(res, "vitals", "out_of_range");
      values.push([name as VitalName, value]);
    }
    if (values.length === 0) return refuse(res, "vitals", "malformed");
    sink?.observeVitals(route, values);
    res.status(204).set("Cache-Control", "no-store").end();
  }

  function refuse(
    res: Response,
    endpoint: ReportEndpoint,
    reason: string,
    code: ErrorCode = "BAD_REQUEST",
  ) {
    sink?.countRefused(endpoint, reason);
    sendErrorPage(res, code);
  }

  return (req, res, next) => {
    if (!REPORT_PATHS.has(req.path)) return next();
    res.locals.route = "reports";
    const endpoint: ReportEndpoint = req.path === CSP_REPORT_PATH ? "csp" : "vitals";
    if (req.method !== "POST") {
      res.setHeader("Allow", "POST");
      return sendErrorPage(res, "METHOD_NOT_ALLOWED");
    }
    const types = endpoint === "csp" ? CSP_TYPES : ["application/x-www-form-urlencoded"];
    if (!req.is(types)) return refuse(res, endpoint, "unsupported_type", "UNSUPPORTED_MEDIA_TYPE");
    void limits[endpoint](req, res, () => {
      const read = endpoint === "csp" ? readViolations : readVitals;
      read(req, res, (error?: unknown) => {
        if (error) {
          const status = (error as { status?: number }).status;
          if (status === 413) return refuse(res, endpoint, "too_large", "PAYLOAD_TOO_LARGE");
          return refuse(res, endpoint, "malformed");
        }
        if (endpoint === "csp") acceptViolations(req, res);
        else acceptVitals(req, res);
      });
    });
  };
}

function readDirective(value: unknown) {
  const name = typeof value === "string" ? value.trim().split(/\s/, 1)[0]!.toLowerCase() : "";
  return DIRECTIVES.has(name) ? name : "other";
}

/** The blocked resource as a bounded label: a keyword, `self`, a scheme, a known origin, or `other`. */
function labelBlocked(value: unknown, ownOrigin: string, knownOrigins: Set<string>) {
  if (typeof value !== "string") return "other";
  if (BLOCKED_KEYWORDS.has(value)) return value;
  const url = URL.parse(value);
  if (!url) return "other";
  if (url.protocol === "data:" || url.protocol === "blob:") return url.protocol.slice(0, -1);
  if (url.origin === ownOrigin) return "self";
  return knownOrigins.has(url.origin) ? url.origin : "other";
}

function withoutQuery(value: unknown) {
  if (typeof value !== "string") return undefined;
  const url = URL.parse(value);
  return url ? `${url.origin}${url.pathname}`.slice(0, 500) : undefined;
}

function withoutPath(value: unknown) {
  const url = typeof value === "string" ? URL.parse(value) : null;
  return url && url.origin !== "null" ? url.origin : undefined;
}

function asNumber(value: unknown) {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
