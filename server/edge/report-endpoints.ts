import type { Request, RequestHandler, Response } from "express";
import type { ServerBuild } from "@remix-run/node";
import { WEB_VITALS_PATH } from "~/lib/constants";
import { getErrorForStatus, type ErrorCode } from "~/lib/errors";
import { readBody } from "./body";
import { sendErrorPage } from "./error-page";
import { limitWrites } from "./rate-limit";

/** What browsers report: where, in which types, at most how large (the edge holds them to it). */
export const REPORTS = {
  csp: {
    path: "/__reports/csp",
    types: ["application/csp-report", "application/reports+json"],
    maxBytes: 64 * 1024,
  },
  vitals: { path: WEB_VITALS_PATH, types: ["application/x-www-form-urlencoded"], maxBytes: 1_024 },
};
export type ReportEndpoint = keyof typeof REPORTS;

// Reports a client may send a minute, each endpoint counting apart; a page that hits it loses some.
const REPORTS_PER_MINUTE = 60;

// Each vital's unit (ms, or none for CLS) and the largest value a page can really have.
export const VITALS = { LCP: 120_000, INP: 120_000, FCP: 120_000, TTFB: 120_000, CLS: 50 } as const;
export type VitalName = keyof typeof VITALS;
const NUMBER = /^\d+(\.\d+)?(e[+-]?\d+)?$/i;

/** What the endpoints record: the metrics when METRICS_PORT is set. */
export type ReportSink = {
  countViolation: (directive: string, blocked: string) => void;
  observeVitals: (route: string, values: [VitalName, number][]) => void;
  countRefused: (endpoint: ReportEndpoint, reason: string) => void;
};

/** Why a report is refused (a `browser_reports_refused_total` reason), or nothing once taken. */
type Accept = (body: string, req: Request, res: Response) => string | undefined;

/**
 * POST `endpoint`'s path only, at most REPORTS_PER_MINUTE a minute per client, its body read
 * within its limit and handed to `accept`: 204, or the refusal counted and its page.
 */
export function createReportEndpoint(
  endpoint: ReportEndpoint,
  accept: Accept,
  sink?: ReportSink,
): RequestHandler {
  const refuse = (res: Response, reason: string, code: ErrorCode = "BAD_REQUEST") => {
    sink?.countRefused(endpoint, reason);
    sendErrorPage(res, code);
  };
  const limit = limitWrites(REPORTS_PER_MINUTE, undefined, () =>
    sink?.countRefused(endpoint, "rate_limited"),
  );
  const take = async (req: Request, res: Response) => {
    let body: Uint8Array;
    try {
      body = await readBody(req, res);
    } catch (refusal) {
      if (!(refusal instanceof globalThis.Response)) return void res.destroy();
      const { code } = getErrorForStatus(refusal.status);
      return refuse(res, code === "PAYLOAD_TOO_LARGE" ? "too_large" : "malformed", code);
    }
    const reason = accept(new TextDecoder().decode(body), req, res);
    if (reason)
      return refuse(res, reason, reason === "too_large" ? "PAYLOAD_TOO_LARGE" : undefined);
    res.status(204).set("Cache-Control", "no-store").end();
  };
  return (req, res, next) => {
    if (req.path !== REPORTS[endpoint].path) return next();
    res.locals.route = "reports";
    if (req.method !== "POST") {
      res.setHeader("Allow", "POST");
      return sendErrorPage(res, "METHOD_NOT_ALLOWED");
    }
    void limit(req, res, () => void take(req, res).catch(next));
  };
}

/** Web vitals, one beacon a page load: refused for an unknown route or a value no page can have. */
export function createVitalsEndpoint(build: ServerBuild, sink?: ReportSink) {
  const routeIds = new Set(Object.keys(build.routes));
  return createReportEndpoint(
    "vitals",
    (body) => {
      const fields = new URLSearchParams(body);
      if ([...fields].length > Object.keys(VITALS).length + 1) return "too_large";
      const routes = fields.getAll("route");
      if (routes.length !== 1 || !routeIds.has(routes[0]!)) return "unknown_route";
      fields.delete("route");
      const values: [VitalName, number][] = [];
      for (const [name, text] of fields) {
        if (!Object.hasOwn(VITALS, name) || fields.getAll(name).length > 1) return "malformed";
        const value = Number(text);
        if (!NUMBER.test(text) || !(value <= VITALS[name as VitalName])) return "out_of_range";
        values.push([name as VitalName, value]);
      }
      if (values.length === 0) return "malformed";
      sink?.observeVitals(routes[0]!, values);
    },
    sink,
  );
}
