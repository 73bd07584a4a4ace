import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// In the app: "~/entities/thing".
import {
  COLOUR_LABELS,
  COLOUR_OPTIONS,
  COLOURS,
  THING_STATUS_LABELS,
  THING_STATUSES,
  THING_TRANSITIONS,
} from "../fixtures/reference-app/app/entities/thing";

// The reference entity's states, changes and labels: the test a new entity copies.
describe("a thing", () => {
  it.each(THING_STATUSES)(
    "offers one change from %s, to another state, with its words",
    (status) => {
      const { to, label } = THING_TRANSITIONS[status];
      expect(THING_STATUSES).toContain(to);
      expect(to).not.toBe(status);
      expect(label).toMatch(/^[A-Z]/);
    },
  );

  it("can come back to every state it can leave", () => {
    for (const status of THING_STATUSES)
      expect(THING_TRANSITIONS[THING_TRANSITIONS[status].to].to).toBe(status);
  });

  it("labels every state and colour, and offers the colours in their order", () => {
    expect(Object.keys(THING_STATUS_LABELS)).toEqual([...THING_STATUSES]);
    const options = COLOURS.map((value) => ({ value, label: COLOUR_LABELS[value] }));
    expect(COLOUR_OPTIONS).toEqual(options);
  });
});

describe("the reference feature", () => {
  const root = path.resolve(import.meta.dirname, "../..");
  const feature = path.join(root, "tests/fixtures/reference-app/app");

  it("adds files beside the app's and replaces none (tests/support/reference-app.ts)", () => {
    const files = readdirSync(feature, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(feature, path.join(entry.parentPath, entry.name)));
    expect(files).toContain("api/things.server.ts");
    expect(files.filter((file) => existsSync(path.join(root, "app", file)))).toEqual([]);
    expect(existsSync(path.join(root, "app/fault-routes"))).toBe(false);
  });
});
