import { describe, expect, it } from "vitest";
import { errorCatalogue, getError, getErrorForStatus, type ErrorCode } from "~/lib/errors";
import { getEnglishError } from "../support/shell";

describe("error catalogue", () => {
  it("has a unique (status, code) pair for every entry (its words: languages.test.ts)", () => {
    const pairs = new Set<string>();
    for (const code of Object.keys(errorCatalogue) as ErrorCode[]) {
      const entry = getError(code);
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.status).toBeLessThan(600);
      pairs.add(`${entry.status} ${code}`);
    }
    expect(pairs.size).toBe(Object.keys(errorCatalogue).length);
  });

  it.each([
    [400, "BAD_REQUEST"],
    [403, "CROSS_SITE_REQUEST"],
    [404, "NOT_FOUND"],
    [405, "METHOD_NOT_ALLOWED"],
    [413, "PAYLOAD_TOO_LARGE"],
    [415, "UNSUPPORTED_MEDIA_TYPE"],
    [429, "RATE_LIMITED"],
    [500, "INTERNAL"],
    [502, "UPSTREAM_BAD_RESPONSE"],
    [503, "UPSTREAM_UNAVAILABLE"],
    [504, "UPSTREAM_TIMEOUT"],
  ])("shows status %i with the words of %s", (status, code) => {
    expect(getErrorForStatus(status)).toEqual({
      ...errorCatalogue[code as ErrorCode],
      code,
      status,
    });
  });

  it("gives each listed status its own title", () => {
    const titles = [400, 403, 404, 405, 413, 429, 500, 502, 503, 504].map(
      (s) => getEnglishError(getErrorForStatus(s).code).title,
    );
    expect(new Set(titles).size).toBe(titles.length);
  });

  it("falls back to the generic entry of the status class", () => {
    expect(getErrorForStatus(418)).toMatchObject({ code: "BAD_REQUEST", status: 418 });
    expect(getErrorForStatus(507)).toMatchObject({ code: "INTERNAL", status: 507 });
    expect(getErrorForStatus(200)).toMatchObject({ code: "INTERNAL", status: 500 });
  });
});
