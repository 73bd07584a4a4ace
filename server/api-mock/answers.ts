import type { Check } from "~/api/call";
import { JSON_TYPE, type createValidator, type Operation } from "~/api/openapi.server";

// What the mock may answer each operation: the named examples of its contract, and the ways any
// API fails.

/** One answer an operation may give: a named example of one of its responses, or a failure. */
export type Answer = {
  id: string;
  label: string;
  status: number;
  mediaType?: string;
  value?: unknown;
  /** A response with content but no example: the mock cannot give it. */
  missing?: boolean;
  /** Holds the call until the app's deadline passes. */
  hang?: boolean;
};

/** Answers every operation has, whatever its contract says: the ways the API itself fails. */
const FAILURES: Answer[] = [
  {
    id: "unavailable",
    label: "503, the API is unavailable",
    status: 503,
    mediaType: "application/problem+json",
    value: { type: "about:blank", status: 503, title: "Service unavailable" },
  },
  {
    id: "failing",
    label: "500, the API fails",
    status: 500,
    mediaType: "application/problem+json",
    value: { type: "about:blank", status: 500, title: "Internal server error" },
  },
  { id: "no-answer", label: "No answer before the deadline", status: 0, hang: true },
];

/** An operation's answers, successes first: the first example of the first is given unless picked. */
export function readAnswers(
  { id, responses }: Operation,
  bodies: ReturnType<typeof createValidator>,
  problems: string[],
) {
  const sorted = responses.toSorted(
    (a, b) => Number(!a.status.startsWith("2")) - Number(!b.status.startsWith("2")),
  );
  const answers = sorted.flatMap(({ status: code, description, types }): Answer[] => {
    const status = Number(code);
    if (!Number.isInteger(status)) return [];
    const [mediaType, media] = Object.entries(types).find(([type]) => JSON_TYPE.test(type)) ?? [];
    if (!mediaType || !media) {
      const label = `${status}, ${description || "no content"}`;
      return [{ id: code, label, status, missing: Object.keys(types).length > 0 || undefined }];
    }
    if (!media.examples.length) {
      problems.push(`${id}: the ${status} answer has no example`);
      return [{ id: code, label: `${status}, no example`, status, missing: true }];
    }
    const validate = bodies(media.schema);
    return media.examples.map(([key, example]) => {
      const off = describe(validate, example.value, "example");
      if (off) problems.push(`${id}: the ${status} example "${key}" is off its schema, ${off}`);
      const label = `${status}, ${String(example.summary ?? key)}`;
      return { id: `${code}-${key}`, label, status, mediaType, value: example.value };
    });
  });
  return [...answers, ...FAILURES];
}

/** What is wrong with `value` by `validate`, said of `part`; undefined when nothing is. */
export function describe(validate: Check, value: unknown, part: string) {
  if (validate(value)) return undefined;
  const [error] = validate.errors ?? [];
  return `${part}${error!.instancePath.replaceAll("/", ".")}: ${error!.message}`;
}
