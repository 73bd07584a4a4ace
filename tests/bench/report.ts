import { median } from "./processes";
import { SERIES, type Sample, type Series } from "./load";

/** A server's samples, one per round, for each series. */
export type Row = { key: string; label: string; samples: Map<Series["name"], Sample[]> };

/** a over b: which rows to compare, and why. */
export type Comparison = { a: string; b: string; what: string };

const span = (values: number[], digits: number) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

const column = (text: string, width: number) => text.padStart(width);
export const LABEL_WIDTH = 48;

export function printRows(rows: Row[]) {
  for (const series of SERIES) {
    console.log(`\n${series.title}`);
    console.log(
      `${"server".padEnd(LABEL_WIDTH)}${column("req/s median (min–max)", 24)}${column("CPU ms/req (min–max)", 24)}` +
        `${column("p50 ms", 8)}${column("p99 ms", 8)}${column("errors", 8)}`,
    );
    for (const row of rows) {
      const runs = row.samples.get(series.name)!;
      console.log(
        `${row.label.padEnd(LABEL_WIDTH)}${column(
          span(
            runs.map((r) => r.rps),
            0,
          ),
          24,
        )}` +
          `${column(
            span(
              runs.map((r) => r.cpuMsPerRequest),
              2,
            ),
            24,
          )}` +
          `${column(median(runs.map((r) => r.p50)).toFixed(1), 8)}` +
          `${column(median(runs.map((r) => r.p99)).toFixed(1), 8)}` +
          `${column(String(runs.reduce((sum, r) => sum + r.errors, 0)), 8)}`,
      );
    }
  }
}

/**
 * Each ratio is of the two medians; in brackets the lowest and highest of the per-round ratios,
 * each of two samples taken moments apart. By CPU the ratio is b's cost over a's: above 1, a is cheaper.
 */
export function printComparisons(rows: Row[], comparisons: Comparison[]) {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const ratio = (a: number[], b: number[]) => {
    const perRound = a.map((value, round) => value / b[round]!);
    const range = `${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)}`;
    return `${(median(a) / median(b)).toFixed(2)} (${range})`;
  };
  console.log(
    `\nratio of medians (per-round ratios min–max); CPU is b's ms/req over a's: above 1, a is cheaper`,
  );
  const heads = SERIES.map((s) => `${column(`${s.name} req/s a/b`, 20)}${column("CPU b/a", 20)}`);
  console.log(`${"".padEnd(58)}${heads.join("")}`);
  for (const { a, b, what } of comparisons) {
    const cells = SERIES.map((series) => {
      const [ofA, ofB] = [a, b].map((key) => byKey.get(key)!.samples.get(series.name)!);
      const rps = ratio(
        ofA!.map((s) => s.rps),
        ofB!.map((s) => s.rps),
      );
      const cpu = ratio(
        ofB!.map((s) => s.cpuMsPerRequest),
        ofA!.map((s) => s.cpuMsPerRequest),
      );
      return `${column(rps, 20)}${column(cpu, 20)}`;
    });
    console.log(`${`${a}/${b}`.padEnd(6)}${what.padEnd(52)}${cells.join("")}`);
  }
}
