import { describe, expect, it } from "vitest";
import { readUser, UntrustedTokensError, withTokens } from "~/auth/provider.server";
import {
  createMemoryBackend,
  createSessionId,
  createSessionStore,
  getSessionTtlSeconds,
  MAX_MEMORY_SESSIONS,
  type Session,
} from "~/auth/session-store.server";
import { parseConfig } from "~/lib/config.server";

const signInEnv = {
  OIDC_ISSUER: "https://login.example.com",
  OIDC_CLIENT_ID: "web",
  ORIGIN: "https://app.example.com",
  SESSION_SECRET: "a-session-secret-of-at-least-32-characters",
};

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
    const name = (claims: Parameters<typeof readUser>[0]) => readUser(claims, "roles").name;
    expect(name({ sub: "s", preferred_username: "ada", email: "a@x" })).toBe("ada");
    expect(name({ sub: "s", name: " ", email: "a@x" })).toBe("a@x");
    expect(name({ sub: "s" })).toBe("s");
  });
});

describe("getSessionTtlSeconds", () => {
  const settings = parseConfig({
    ...signInEnv,
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

describe("sessions in memory", () => {
  const settings = parseConfig(signInEnv).signIn!;

  it("keeps at most MAX_MEMORY_SESSIONS, the least recently saved going first", async () => {
    const store = createSessionStore(createMemoryBackend(), settings);
    const now = Date.now();
    const sessions = Array.from(
      { length: MAX_MEMORY_SESSIONS + 1 },
      (_, i) =>
        ({ id: createSessionId(), sub: `visitor-${i}`, createdAt: now, seenAt: now }) as Session,
    );
    for (const session of sessions.slice(0, MAX_MEMORY_SESSIONS)) await store.save(session);
    await store.save(sessions[0]!);
    await store.save(sessions.at(-1)!);
    expect(await store.get(sessions[0]!.id)).not.toBeNull();
    expect(await store.get(sessions[1]!.id)).toBeNull();
    expect(await store.get(sessions.at(-1)!.id)).not.toBeNull();
  });
});

describe("withTokens", () => {
  const tokens = (access_token: string, token_type = "bearer") =>
    ({
      access_token,
      token_type,
      expiresIn: () => 300,
      claims: () => undefined,
    }) as unknown as Parameters<typeof withTokens>[1];

  it("takes tokens a header can carry and refuses the rest", () => {
    const token = "eyJ.a-b_c~d+e/f=";
    expect(withTokens({}, tokens(token), "roles").accessToken).toBe(token);
    for (const accessToken of ["a\r\nb", "a\u0000", "tökén", " padded", ""]) {
      expect(() => withTokens({}, tokens(accessToken), "roles")).toThrow(UntrustedTokensError);
    }
    expect(() => withTokens({}, tokens("a", "bearer\n"), "roles")).toThrow(UntrustedTokensError);
  });
});
