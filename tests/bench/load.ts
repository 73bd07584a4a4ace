import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import autocannon from "autocannon";
import { median, percentile, postThemeForm, type Service } from "./processes";

/** What a browser sends for a page; with and without the `Accept-Encoding` every browser sends. */
const BROWSER_HEADERS = {
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
};
export const SERIES = [
  { name: "plain", title: "without compression", headers: BROWSER_HEADERS },
  {
    name: "gzip/br",
    title: "Accept-Encoding: gzip, br (as browsers send it)",
    headers: { ...BROWSER_HEADERS, "accept-encoding": "gzip, br" },
  },
] as const;
export type Series = (typeof SERIES)[number];

export type Sample = {
  rps: number;
  p50: number;
  p99: number;
  cpuMsPerRequest: number;
  errors: number;
};

/**
 * CPU time the process has spent on all its threads, in ms, from the scheduler's own count
 * (nanoseconds; /proc/PID/stat counts 10 ms ticks): unlike req/s, steady on a shared host.
 */
export function cpuMs(pid: number) {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
  }
  return total / 1e6;
}

/**
 * Loads every service at once, each with its own `connections`, for the same `seconds`: each
 * figure is taken under the same load of the machine as the others, whatever else runs on it.
 */
export function load(services: Service[], series: Series, seconds: number, connections: number) {
  return Promise.all(
    services.map(async (service) => {
      const cpuBefore = cpuMs(service.child.pid!);
      const result = await autocannon({
        url: `${service.url}/`,
        headers: { ...series.headers, ...service.headers },
        connections,
        duration: seconds,
      });
      return {
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        cpuMsPerRequest: (cpuMs(service.child.pid!) - cpuBefore) / result.requests.total,
        // A reload's 304 is its answer, not an error.
        errors:
          result.errors +
          result.timeouts +
          (service.headers ? result.requests.total - result["3xx"] : result.non2xx),
      } satisfies Sample;
    }),
  );
}

/** How the home page goes over the wire for one series: its encoding, size and framing. */
export async function describeAnswer(service: Service, series: Series): Promise<string> {
  const headers = { ...series.headers, ...service.headers };
  const response = await new Promise<http.IncomingMessage>((resolve) =>
    http.get(`${service.url}/`, { headers }, resolve),
  );
  let bytes = 0;
  for await (const chunk of response) bytes += (chunk as Buffer).length;
  const { "content-encoding": encoding = "identity", "content-length": length } = response.headers;
  const framing = length ? "length" : "chunked";
  return `${response.statusCode} ${encoding} ${(bytes / 1024).toFixed(1)} KB ${framing}`;
}

/** POST the theme form as a browser without JavaScript does, follow the 303, GET the page. */
export async function formRoundTrips(service: Service, count: number) {
  const times: number[] = [];
  let failures = 0;
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const post = await postThemeForm(service, i % 2 ? "dark" : "light");
    await post.arrayBuffer();
    const cookies = Array.from(post.headers.getSetCookie(), (c) => c.split(";")[0]).join("; ");
    const location = post.headers.get("location") ?? "/";
    const page = await fetch(new URL(location, service.url), { headers: { cookie: cookies } });
    await page.arrayBuffer();
    if (post.status !== 303 || page.status !== 200) failures++;
    times.push(performance.now() - start);
  }
  return { median: median(times), p95: percentile(times, 95), failures };
}
