import type { ServerBuild } from "@remix-run/node";
import type { Config } from "~/lib/config.server";
import type { AppEntry } from "../app";
import { createReportEndpoint, type ReportSink } from "./report-endpoints";

// A batch of the Reporting API holds one report per violation: past this many, the rest are dropped.
const MAX_REPORTS_PER_BATCH = 32;

const DIRECTIVES = new Set(
  `default-src script-src script-src-elem script-src-attr style-src style-src-elem style-src-attr
  img-src font-src connect-src media-src object-src frame-src child-src worker-src manifest-src
  base-uri form-action frame-ancestors require-trusted-types-for trusted-types sandbox
  upgrade-insecure-requests fenced-frame-src`.split(/\s+/),
);
const BLOCKED_KEYWORDS = new Set(
  "inline eval wasm-eval trusted-types-policy trusted-types-sink".split(" "),
);

type Violation = Record<string, unknown>;

/**
 * Violations of the Content-Security-Policy, one report (`report-uri`) or a Reporting API batch:
 * each counted, and logged without any query string or fragment.
 */
export function createCspEndpoint(config: Config, build: ServerBuild, sink?: ReportSink) {
  const { logger } = build.entry.module as unknown as AppEntry;
  const knownOrigins = new Set([config.signIn ? new URL(config.signIn.issuer).origin : ""]);
  return createReportEndpoint(
    "csp",
    (text, _req, res) => {
      const body = parseJson(text);
      const reports = Array.isArray(body)
        ? body
            .filter((report: Violation | null) => report?.type === "csp-violation")
            .map((report: Violation) => report.body as Violation | null)
        : [(body as Violation | null)?.["csp-report"] as Violation | null];
      const violations = reports.filter(
        (report): report is Violation =>
          typeof report === "object" && report !== null && !Array.isArray(report),
      );
      if (violations.length < reports.length) return "malformed";
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
    },
    sink,
  );
}

// Not JSON reads as no report, which is refused as malformed.
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
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
