import { setTimeout as sleep } from "node:timers/promises";
import type { RunningServer } from "./server";

export type Sample = { name: string; labels: Record<string, string>; value: number };

/** Prometheus' text format, one sample a line. */
export function parseMetrics(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a Prometheus sample: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The sum of the samples of `name` whose labels include `labels`. */
export const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((sample) => sample.name === name)
    .filter((sample) =>
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);

/** The metrics once no request is in flight: one is counted a moment after its answer. */
export async function scrapeMetrics(server: RunningServer) {
  for (;;) {
    const response = await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`);
    const samples = parseMetrics(await response.text());
    if (total(samples, "http_requests_in_flight") === 0) return samples;
    await sleep(20);
  }
}
