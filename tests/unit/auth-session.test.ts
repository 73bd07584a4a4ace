import { describe, expect, it } from "vitest";
import { readUser } from "~/auth/session.server";
import { getSessionTtlSeconds, type Session } from "~/auth/session-store.server";
import { parseConfig } from "~/lib/config.server";

describe("readUser", () => {
  it("reads roles from a top-level or a nested claim", () => {
    expect(readUser({ sub: "1", name: "Ada", roles: ["editor", 7] }, "roles")).toEqual({
      sub: "1",
      name: "Ada",
      roles: ["editor"],
    });
    const keycloak = { sub: "1", realm_access: { roles: ["admin"] } };
    expect(readUser(keycloak, "realm_access.roles").roles).toEqual(["admin"]);
    expect(readUser({ sub: "1", groups: "staff" }, "groups").roles).toEqual(["staff"]);
  });

  it("has no roles when the claim is missing or not a list", () => {
    expect(readUser({ sub: "1" }, "realm_access.roles").roles).toEqual([]);
    expect(readUser({ sub: "1", roles: { editor: true } }, "roles").roles).toEqual([]);
  });

  it("names the visitor by name, then username, email or subject", () => {
    expect(readUser({ sub: "s", preferred_username: "ada", email: "a@x" }, "roles").name).toBe("ada");
    expect(readUser({ sub: "s", name: " ", email: "a@x" }, "roles").name).toBe("a@x");
    expect(readUser({ sub: "s" }, "roles").name).toBe("s");
  });
});

describe("getSessionTtlSeconds", () => {
  const settings = parseConfig({
    OIDC_ISSUER: "https://login.example.com",
    OIDC_CLIENT_ID: "web",
    ORIGIN: "https://app.example.com",
    SESSION_SECRET: "a-session-secret-of-at-least-32-characters",
    SESSION_IDLE_SECONDS: "600",
    SESSION_MAX_SECONDS: "3600",
  }).signIn!;
  const session = (createdAt: number, seenAt: number) => ({ createdAt, seenAt }) as Session;

  it("is the idle end or the absolute end, whichever comes first, rounded up", () => {
    expect(getSessionTtlSeconds(session(0, 0), settings, 100)).toBe(600);
    expect(getSessionTtlSeconds(session(0, 3_500_000), settings, 3_500_000)).toBe(100);
    expect(getSessionTtlSeconds(session(0, 0), settings, 599_001)).toBe(1);
  });

  it("is 0 once either end has passed", () => {
    expect(getSessionTtlSeconds(session(0, 0), settings, 600_000)).toBe(0);
    expect(getSessionTtlSeconds(session(0, 3_599_000), settings, 3_600_000)).toBe(0);
  });
});
