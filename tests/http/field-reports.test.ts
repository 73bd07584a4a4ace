import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { scrapeMetrics, total } from "../support/metrics";
import { buildReferenceApp, referenceAppBuild } from "../support/reference-app";
import {
  getLogLines,
  HANG_TIMEOUT_MS,
  reservePort,
  startServer,
  type RunningServer,
  startSuiteServer,
  untilLoggedSoFar,
} from "../support/server";
import { requireSystemBinary } from "../toolchain/system-packages";

// What visitors' browsers report (CSP violations, web vitals) and the security.txt, on the built
// reference app with metrics on.

/** An instant `ms` from now, as SECURITY_TXT_EXPIRES takes it. */
const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();
const SECURITY_TXT = {
  SECURITY_TXT_CONTACT: "mailto:security@example.com,https://example.com/report",
  SECURITY_TXT_EXPIRES: fromNow(30 * 86_400_000),
  SECURITY_TXT_POLICY: "https://example.com/security-policy",
};

beforeAll(() => buildReferenceApp());

const server = startSuiteServer({ METRICS_PORT: "0", ...SECURITY_TXT }, { cwd: referenceAppBuild });

const count = async (name: string, labels: Record<string, string>) =>
  total(await scrapeMetrics(server), name, labels);

const CSP = "application/csp-report";
const BATCH = "application/reports+json";
const FORM = "application/x-www-form-urlencoded";

const post = (path: string, type: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": type, ...headers },
    body,
    redirect: "manual",
  });

/** What Firefox 153 posted (report-uri) for an inline script on a page whose address had a code. */
const firefoxReport = (origin: string) =>
  JSON.stringify({
    "csp-report": {
      "blocked-uri": "inline",
      "column-number": 46,
      disposition: "enforce",
      "document-uri": `${origin}/auth/callback?code=firefox-code&state=s`,
      "effective-directive": "script-src-elem",
      "line-number": 1,
      "original-policy": `default-src 'self'; script-src 'nonce-abc'; report-uri ${origin}/__reports/csp; report-to csp`,
      referrer: "",
      "source-file": `${origin}/auth/callback?code=firefox-code&state=s`,
      "status-code": 200,
      "violated-directive": "script-src-elem",
    },
  });

describe("CSP violation reports", () => {
  it("counts and logs Firefox's report-uri shape without the address's query", async () => {
    const sameOrigin = { origin: server.url, "sec-fetch-site": "same-origin" };
    const response = await post("/__reports/csp", CSP, firefoxReport(server.url), sameOrigin);
    expect(response.status).toBe(204);
    const labels = { directive: "script-src-elem", blocked: "inline" };
    expect(await count("csp_violations_total", labels)).toBe(1);
    await untilLoggedSoFar(server);
    const [line] = getLogLines(server, "content security policy violation");
    expect(line).toContain(`"document":"${server.url}/auth/callback"`);
    expect(server.output()).not.toContain("firefox-code");
  });

  it("is counted from Firefox itself, which sends report-uri where it has no Reporting API", async () => {
    const profile = mkdtempSync(path.join(os.tmpdir(), "firefox-"));
    // Firefox 149 and later use report-to, and uploaded nothing to this plain-http origin: this is
    // what Firefox without the Reporting API sends.
    const prefs = {
      "dom.reporting.enabled": false,
      "browser.shell.checkDefaultBrowser": false,
      "datareporting.policy.dataSubmissionEnabled": false,
      "toolkit.telemetry.reportingpolicy.firstRun": false,
      "browser.aboutwelcome.enabled": false,
    };
    const userJs = Object.entries(prefs).map(([name, value]) => `user_pref("${name}", ${value});`);
    writeFileSync(path.join(profile, "user.js"), userJs.join("\n"));
    const page = `${server.url}/faults/inline-script?code=firefox-page-code#fragment`;
    const firefox = spawn(
      requireSystemBinary("firefox-esr"),
      ["--headless", "--no-remote", "--profile", profile, page],
      { stdio: "ignore", detached: true, env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: "1" } },
    );
    const lines = () =>
      getLogLines(server, "content security policy violation", "/faults/inline-script");
    try {
      await expect.poll(lines).toHaveLength(1);
    } finally {
      process.kill(-firefox.pid!, "SIGKILL");
      rmSync(profile, { recursive: true, force: true });
    }
    const [line] = lines();
    expect(JSON.parse(line!).violations).toEqual([
      expect.objectContaining({
        directive: "script-src-elem",
        blocked: "inline",
        disposition: "enforce",
      }),
    ]);
    expect(server.output()).not.toContain("firefox-page-code");
    expect(server.output()).not.toContain("fragment");
  });

  it("counts each violation of a Reporting API batch, and only those", async () => {
    const report = (blockedURL: string, effectiveDirective: string) => ({
      type: "csp-violation",
      age: 10,
      url: `${server.url}/?code=batch-code`,
      user_agent: "Mozilla/5.0",
      body: {
        blockedURL,
        effectiveDirective,
        documentURL: `${server.url}/?code=batch-code`,
        disposition: "enforce",
      },
    });
    const batch = [
      report("https://cdn.example/a.js?token=batch-token", "script-src-elem"),
      report(`${server.url}/build/x.js`, "script-src-elem"),
      report("data:image/png;base64,AAAA", "img-src"),
      report("eval", "made-up-directive"),
      { type: "deprecation", age: 1, url: server.url, body: { id: "x" } },
    ];
    const response = await post("/__reports/csp", BATCH, JSON.stringify(batch));
    expect(response.status).toBe(204);
    const violations = (directive: string, blocked: string) =>
      count("csp_violations_total", { directive, blocked });
    expect(await violations("script-src-elem", "other")).toBe(1);
    expect(await violations("script-src-elem", "self")).toBe(1);
    expect(await violations("img-src", "data")).toBe(1);
    expect(await violations("other", "eval")).toBe(1);
    expect(server.output()).not.toContain("batch-token");
    expect(server.output()).not.toContain("batch-code");
  });
});

describe("web vitals", () => {
  const beacon = (fields: string) => post("/__reports/vitals", FORM, fields);

  it("records one beacon's vitals per route, in buckets on the published thresholds", async () => {
    const fields = "route=routes%2F_site._index&LCP=3000&INP=120&CLS=0.3&FCP=1000&TTFB=1e2";
    expect((await beacon(fields)).status).toBe(204);
    const samples = await scrapeMetrics(server);
    const buckets = (name: string) =>
      samples
        .filter((s) => s.name === `${name}_bucket` && s.labels.route === "routes/_site._index")
        .map((s) => `le ${s.labels.le}: ${s.value}`);
    expect(buckets("web_vitals_lcp_seconds")).toEqual(["le 2.5: 0", "le 4: 1", "le +Inf: 1"]);
    expect(buckets("web_vitals_inp_seconds")).toEqual(["le 0.2: 1", "le 0.5: 1", "le +Inf: 1"]);
    expect(buckets("web_vitals_cls")).toEqual(["le 0.1: 0", "le 0.25: 0", "le +Inf: 1"]);
    expect(buckets("web_vitals_fcp_seconds")).toEqual(["le 1.8: 1", "le 3: 1", "le +Inf: 1"]);
    expect(buckets("web_vitals_ttfb_seconds")).toEqual(["le 0.8: 1", "le 1.8: 1", "le +Inf: 1"]);
  });

  it.each([
    ["an unknown route", "route=routes%2Fnowhere&LCP=1000", "unknown_route"],
    ["no route", "LCP=1000", "unknown_route"],
    ["the route twice", "route=root&route=root&LCP=1000", "unknown_route"],
    ["a negative value", "route=root&LCP=-5", "out_of_range"],
    ["an LCP of two minutes and more", "route=root&LCP=120001", "out_of_range"],
    ["a CLS of 51", "route=root&CLS=51", "out_of_range"],
    ["Infinity", "route=root&INP=Infinity", "out_of_range"],
    ["a hexadecimal value", "route=root&INP=0x10", "out_of_range"],
    ["an unknown metric", "route=root&FID=10", "malformed"],
    ["a metric twice", "route=root&LCP=1&LCP=2", "malformed"],
    ["no metric", "route=root", "malformed"],
    ["more fields than metrics", `route=root&${"LCP=1&".repeat(10)}`, "too_large"],
  ])("refuses %s with 400 or 413 and counts it", async (_name, fields, reason) => {
    const refused = () => count("browser_reports_refused_total", { endpoint: "vitals", reason });
    const before = await refused();
    const response = await beacon(fields);
    expect([400, 413]).toContain(response.status);
    expect(await refused()).toBe(before + 1);
  });
});

describe("security.txt", () => {
  it("is served as text/plain from the configuration, with Canonical when ORIGIN is set", async () => {
    const response = await fetch(`${server.url}/.well-known/security.txt`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(await response.text()).toBe(
      [
        "Contact: mailto:security@example.com",
        "Contact: https://example.com/report",
        `Expires: ${SECURITY_TXT.SECURITY_TXT_EXPIRES}`,
        "Policy: https://example.com/security-policy",
        "",
      ].join("\n"),
    );
    const listener = await reservePort();
    const withOrigin = await startServer({ ...SECURITY_TXT, ORIGIN: listener.url }, { listener });
    try {
      const text = await (await fetch(`${withOrigin.url}/.well-known/security.txt`)).text();
      expect(text).toContain(`Canonical: ${listener.url}/.well-known/security.txt\n`);
    } finally {
      await withOrigin.stop();
    }
  });

  it("is the 404 page, with one warning, once its Expires has passed, as the server runs", async () => {
    const status = (at: RunningServer) =>
      fetch(`${at.url}/.well-known/security.txt`).then(async (response) => {
        await response.arrayBuffer();
        return response;
      });
    const begun = performance.now();
    const stale = await startServer({ ...SECURITY_TXT, SECURITY_TXT_EXPIRES: fromNow(-1_000) });
    const startup = performance.now() - begun;
    try {
      expect([(await status(stale)).status, (await status(stale)).status]).toEqual([404, 404]);
      await untilLoggedSoFar(stale);
      expect(getLogLines(stale, '"level":40', "security.txt expired")).toHaveLength(1);
    } finally {
      await stale.stop();
    }
    // A moment ahead: four times what a start took here, so that the first answer comes before it.
    const ahead = 4 * startup;
    const soon = await startServer({ ...SECURITY_TXT, SECURITY_TXT_EXPIRES: fromNow(ahead) });
    try {
      const first = await status(soon);
      expect(first.status).toBe(200);
      const maxAge = Number(/max-age=(\d+)/.exec(first.headers.get("cache-control")!)![1]);
      expect(maxAge).toBeLessThan(ahead / 1000);
      await expect
        .poll(async () => (await status(soon)).status, { timeout: ahead + HANG_TIMEOUT_MS })
        .toBe(404);
      expect((await status(soon)).status).toBe(404);
      await untilLoggedSoFar(soon);
      expect(getLogLines(soon, "security.txt expired")).toHaveLength(1);
    } finally {
      await soon.stop();
    }
  });

  it("is the 404 page until it is configured", async () => {
    const off = await startServer();
    try {
      const response = await fetch(`${off.url}/.well-known/security.txt`);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    } finally {
      await off.stop();
    }
  });
});

describe("hostile reports", () => {
  const nested = (depth: number) => `{"csp-report":${"[".repeat(depth)}${"]".repeat(depth)}}`;
  it.each([
    ["a report over 64 KB", CSP, firefoxReport("x").padEnd(70_000), 413],
    ["nested arrays to 64 KB", CSP, nested(32_000), 400],
    ["not JSON", CSP, "<csp-report/>", 400],
    ["JSON of another shape", CSP, '{"report":{}}', 400],
    ["a batch whose violation has no body", BATCH, '[{"type":"csp-violation"}]', 400],
    ["JSON as application/json", "application/json", firefoxReport("x"), 415],
    ["a form", FORM, "a=1", 415],
  ])("%s (%s) is refused", async (_name, type, body, status) => {
    const response = await post("/__reports/csp", type, body);
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  it("counts at most 32 violations of one batch, in one log line", async () => {
    const violation = {
      type: "csp-violation",
      body: { blockedURL: "inline", effectiveDirective: "style-src" },
    };
    const response = await post(
      "/__reports/csp",
      BATCH,
      JSON.stringify(Array(400).fill(violation)),
    );
    expect(response.status).toBe(204);
    expect(await count("csp_violations_total", { directive: "style-src" })).toBe(32);
    await expect.poll(() => getLogLines(server, '"dropped":368')).toHaveLength(1);
  });

  it("refuses a gzipped report, and a report over the limit as it streams", async () => {
    const gzipped = await post("/__reports/csp", CSP, "x", { "content-encoding": "gzip" });
    expect(gzipped.status).toBe(415);
    const streamed = await fetch(`${server.url}/__reports/csp`, {
      method: "POST",
      headers: { "content-type": CSP },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(8_192).fill(32));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it("answers a flood from one client with 429 after 60 reports a minute, each endpoint apart, writes untouched", async () => {
    const flood = await Promise.all(
      Array.from({ length: 80 }, () => post("/__reports/vitals", FORM, "route=root&CLS=0")),
    );
    const limited = flood.filter((response) => response.status === 429).length;
    expect(limited).toBeGreaterThanOrEqual(20);
    const labels = { endpoint: "vitals", reason: "rate_limited" };
    expect(await count("browser_reports_refused_total", labels)).toBe(limited);
    expect((await post("/__reports/csp", CSP, firefoxReport(server.url))).status).not.toBe(429);
    expect((await post("/preferences/theme", FORM, "theme=dark")).status).toBe(303);
  });
});
