import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// In the app: "~/entities/thing" and "~/i18n/things.server".
import {
  COLOURS,
  THING_STATUSES,
  THING_TRANSITIONS,
} from "../fixtures/reference-app/app/entities/thing";
import { thingMessages } from "../fixtures/reference-app/app/i18n/things.server";

// The reference entity's states, changes and words: the test a new entity copies.
describe("a thing", () => {
  it.each(THING_STATUSES)("offers one change from %s, to another state", (status) => {
    expect(THING_STATUSES).toContain(THING_TRANSITIONS[status]);
    expect(THING_TRANSITIONS[status]).not.toBe(status);
  });

  it("can come back to every state it can leave", () => {
    for (const status of THING_STATUSES)
      expect(THING_TRANSITIONS[THING_TRANSITIONS[status]]).toBe(status);
  });

  it.each(Object.keys(thingMessages) as (keyof typeof thingMessages)[])(
    "words every state, change and colour in %s",
    (locale) => {
      const words = thingMessages[locale] as Record<string, unknown>;
      const keys = [
        ...THING_STATUSES.flatMap((status) => [
          `things.status.${status}`,
          `things.transition.${status}`,
          `things.transitionPending.${status}`,
        ]),
        ...COLOURS.map((colour) => `things.colour.${colour}`),
      ];
      for (const key of keys) expect(words[key], key).toEqual(expect.any(String));
    },
  );
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
