import { setTimeout as sleep } from "node:timers/promises";
import type { ServerProcess } from "./server";

export type Sample = { name: string; labels: Record<string, string>; value: number };

/**
 * The address of a server's metrics (started with METRICS_PORT=0), from the line it logs when
 * they are served.
 */
export async function getMetricsUrl(server: ServerProcess) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const line = server
      .stdout()
      .split("\n")
      .find((candidate) => candidate.includes('"msg":"metrics on '));
    if (line) return `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}/metrics`;
    if (Date.now() > deadline) throw new Error(`no metrics line in the log:\n${server.output()}`);
    await sleep(20);
  }
}

/** Every sample of a scrape in the Prometheus text format. */
export async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}

export function parseMetrics(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [
          name!,
          value!,
        ]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}) {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((sum, s) => sum + s.value, 0);
}
