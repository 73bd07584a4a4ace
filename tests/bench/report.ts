import { median } from "./processes";
import { SERIES, type Sample, type Series } from "./load";

/** A server's samples, one per round, for each series. */
export type Row = { key: string; label: string; samples: Map<Series["name"], Sample[]> };

/** a over b: which rows to compare, and why. */
export type Comparison = { a: string; b: string; what: string };

const column = (text: string, width: number) => text.padStart(width);
export const LABEL_WIDTH = 44;

/** The values at the given fractions of the sorted list (0.25 is the lower quartile). */
const quantile = (sorted: number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(fraction * (sorted.length - 1))))]!;

/**
 * The median's 95 % confidence interval from the order statistics: the ranks a binomial(n, ½)
 * count falls between 95 % of the time. It assumes nothing about how the ratios are spread.
 */
function medianInterval(sorted: number[]) {
  const n = sorted.length;
  const half = 1.96 * Math.sqrt(n) * 0.5;
  const low = Math.max(0, Math.floor(n / 2 - half));
  const high = Math.min(n - 1, Math.ceil(n / 2 + half) - 1);
  return [sorted[low]!, sorted[high]!] as const;
}

export function describeRatios(ratios: number[]) {
  const sorted = [...ratios].sort((x, y) => x - y);
  const [low, high] = medianInterval(sorted);
  const f = (value: number) => value.toFixed(3);
  return `${f(median(sorted))} [${f(low)}–${f(high)}] IQR ${f(quantile(sorted, 0.25))}–${f(quantile(sorted, 0.75))}`;
}

export function printRows(rows: Row[]) {
  console.log(
    `\n${"server".padEnd(LABEL_WIDTH)}${SERIES.map((s) => column(`${s.name}: req/s, CPU ms/req`, 30)).join("")}`,
  );
  for (const row of rows) {
    const cells = SERIES.map((series) => {
      const runs = row.samples.get(series.name)!;
      const rps = median(runs.map((r) => r.rps)).toFixed(0);
      const cpu = median(runs.map((r) => r.cpuMsPerRequest)).toFixed(3);
      const errors = runs.reduce((sum, r) => sum + r.errors, 0);
      return column(`${rps}, ${cpu}${errors ? ` (${errors} errors)` : ""}`, 30);
    });
    console.log(`${row.label.padEnd(LABEL_WIDTH)}${cells.join("")}`);
  }
}

/**
 * CPU per request of a over b, one ratio per round (the two measured moments apart): their
 * median, its 95 % interval in brackets, and the interquartile range of the rounds.
 */
export function printComparisons(rows: Row[], comparisons: Comparison[]) {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  console.log(`\nCPU per request, a over b: median of the per-round ratios [95 % interval], IQR`);
  for (const series of SERIES) {
    console.log(series.title);
    for (const { a, b, what } of comparisons) {
      const [ofA, ofB] = [a, b].map((key) => byKey.get(key)!.samples.get(series.name)!);
      const ratios = ofA!.map(
        (sample, round) => sample.cpuMsPerRequest / ofB![round]!.cpuMsPerRequest,
      );
      console.log(`  ${`${a}/${b}`.padEnd(6)}${what.padEnd(44)} ${describeRatios(ratios)}`);
    }
  }
}
