import { describe, expect, it } from "vitest";
import { parseConfig } from "~/lib/config.server";

const signIn = {
  OIDC_ISSUER: "https://login.example.com/realms/app",
  OIDC_CLIENT_ID: "web",
  ORIGIN: "https://app.example.com",
  SESSION_SECRET: "a-session-secret-of-at-least-32-characters",
};

const invalid = (detail: string) => `Invalid environment variable ${detail}`;

describe("sign-in settings", () => {
  it("are off unless the issuer and the client id are set", () => {
    expect(parseConfig({}).signIn).toBeNull();
    expect(parseConfig({ OIDC_ROLES_CLAIM: "realm_access.roles" }).signIn).toBeNull();
  });

  it("derive the redirect address from ORIGIN and keep the defaults", () => {
    expect(parseConfig(signIn).signIn).toMatchObject({
      issuer: "https://login.example.com/realms/app",
      clientId: "web",
      clientSecret: null,
      rolesClaim: "roles",
      scopes: ["openid", "profile", "email"],
      redirectUri: "https://app.example.com/auth/callback",
      redisUrl: null,
    });
  });

  it("read a nested roles claim, scopes and lifetimes", () => {
    const settings = parseConfig({
      ...signIn,
      OIDC_CLIENT_SECRET: "s3cret",
      OIDC_ROLES_CLAIM: "realm_access.roles",
      OIDC_SCOPES: "openid  offline_access",
      SESSION_IDLE_SECONDS: "600",
      SESSION_MAX_SECONDS: "3600",
      SESSION_REDIS_URL: "redis://127.0.0.1:6379",
    }).signIn;
    expect(settings).toMatchObject({
      clientSecret: "s3cret",
      rolesClaim: "realm_access.roles",
      scopes: ["openid", "offline_access"],
      idleSeconds: 600,
      maxSeconds: 3600,
      redisUrl: "redis://127.0.0.1:6379",
    });
  });

  it.each([
    [{ OIDC_ISSUER: signIn.OIDC_ISSUER }, invalid("OIDC_CLIENT_ID: required with OIDC_ISSUER")],
    [{ OIDC_CLIENT_ID: "web" }, invalid("OIDC_ISSUER: required with OIDC_CLIENT_ID")],
    [{ ...signIn, ORIGIN: undefined }, invalid("ORIGIN: required for sign-in")],
    [{ ...signIn, SESSION_SECRET: undefined }, invalid("SESSION_SECRET: required for sign-in")],
    [
      { ...signIn, OIDC_ISSUER: "http://login.example.com" },
      invalid("OIDC_ISSUER: must be an https URL"),
    ],
    [{ ...signIn, OIDC_SCOPES: "profile email" }, invalid("OIDC_SCOPES: must include openid")],
    [{ ...signIn, OIDC_ROLES_CLAIM: "a..b" }, invalid("OIDC_ROLES_CLAIM")],
    [
      { ...signIn, SESSION_IDLE_SECONDS: "7200", SESSION_MAX_SECONDS: "3600" },
      "SESSION_IDLE_SECONDS: must not exceed",
    ],
    [{ ...signIn, SESSION_REDIS_URL: "http://cache" }, "SESSION_REDIS_URL: must be a redis://"],
  ])("refuse settings that cannot work, in one line (%#)", (env, message) => {
    expect(() => parseConfig(env)).toThrow(message);
  });

  it("accept a plain-http issuer on this machine only", () => {
    const local = parseConfig({ ...signIn, OIDC_ISSUER: "http://127.0.0.1:4000" }).signIn;
    expect(local?.issuer).toBe("http://127.0.0.1:4000/");
  });
});
