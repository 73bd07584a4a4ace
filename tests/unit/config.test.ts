import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "~/lib/config.server";

describe("parseConfig", () => {
  it("runs with no environment at all", () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      NODE_ENV: "production",
      PORT: 3000,
      LOG_LEVEL: "info",
      SHUTDOWN_DELAY_MS: 0,
      SHUTDOWN_TIMEOUT_MS: 10_000,
      BODY_LIMIT_BYTES: 1_048_576,
      sessionSecrets: null,
      secureCookies: false,
    });
    expect(config.HOST).toBeUndefined();
    expect(config.ORIGIN).toBeUndefined();
  });

  it("treats empty values as unset", () => {
    const config = parseConfig({ PORT: "", ORIGIN: "" });
    expect(config.PORT).toBe(3000);
    expect(config.ORIGIN).toBeUndefined();
  });

  it("reads numbers, origins and rotated secrets", () => {
    const a = "a".repeat(32);
    const b = "b".repeat(40);
    const config = parseConfig({
      PORT: "8080",
      ORIGIN: "https://example.com/",
      SESSION_SECRET: `${a}, ${b}`,
      SHUTDOWN_TIMEOUT_MS: "2500",
    });
    expect(config.PORT).toBe(8080);
    expect(config.ORIGIN).toBe("https://example.com");
    expect(config.secureCookies).toBe(true);
    expect(config.sessionSecrets).toEqual([a, b]);
    expect(config.SHUTDOWN_TIMEOUT_MS).toBe(2500);
  });

  it("reads the API settings, with a base URL that keeps its path but not a trailing slash", () => {
    expect(parseConfig({})).toMatchObject({
      API_TIMEOUT_MS: 5_000,
      API_HEALTH_PATH: "/",
      API_MAX_RESPONSE_BYTES: 1_048_576,
    });
    expect(parseConfig({}).API_BASE_URL).toBeUndefined();
    expect(parseConfig({ API_BASE_URL: "https://api.example.com/v1/" }).API_BASE_URL).toBe(
      "https://api.example.com/v1",
    );
  });

  it("marks cookies Secure only for an https origin", () => {
    expect(parseConfig({ ORIGIN: "http://localhost:3000" }).secureCookies).toBe(false);
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["PORT", "3.5"],
    ["ORIGIN", "not a url"],
    ["ORIGIN", "ftp://example.com"],
    ["ORIGIN", "https://example.com/app"],
    ["SESSION_SECRET", "too-short"],
    ["SESSION_SECRET", `${"a".repeat(32)},short`],
    ["LOG_LEVEL", "loud"],
    ["NODE_ENV", "staging"],
    ["SHUTDOWN_DELAY_MS", "-1"],
    ["SHUTDOWN_TIMEOUT_MS", "-1"],
    ["BODY_LIMIT_BYTES", "lots"],
    ["API_BASE_URL", "api.example.com"],
    ["API_BASE_URL", "https://api.example.com/?key=1"],
    ["API_BASE_URL", "https://user:pass@api.example.com"],
    ["API_TIMEOUT_MS", "0"],
    ["API_HEALTH_PATH", "health"],
    ["API_MAX_RESPONSE_BYTES", "-5"],
    ["API_MOCK", "true"],
    ["API_MOCK", "yes"],
    ["SECURITY_TXT_CONTACT", "security@example.com"],
    ["SECURITY_TXT_CONTACT", "mailto:a@example.com, http://example.com/report"],
    ["SECURITY_TXT_EXPIRES", "next year"],
    ["SECURITY_TXT_EXPIRES", "2027-10-31"],
    ["SECURITY_TXT_EXPIRES", new Date(Date.now() + 366 * 86_400_000).toISOString()],
    ["SECURITY_TXT_POLICY", "http://example.com/policy"],
  ])("rejects %s=%s with a message naming the variable", (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(
      new RegExp(`^Invalid environment variable ${name}: `),
    );
  });

  it("lets the API mock answer in development only, on this machine only", () => {
    const mock = { API_MOCK: "true", NODE_ENV: "development" };
    expect(parseConfig({ ...mock, API_BASE_URL: "http://127.0.0.1:4010" }).API_MOCK).toBe(true);
    expect(() => parseConfig({ ...mock, API_BASE_URL: "https://api.example.com" })).toThrow(
      /^Invalid environment variable API_MOCK: /,
    );
  });

  it("turns the security.txt on with a contact and an expiry, and refuses either alone", () => {
    const fields = {
      SECURITY_TXT_CONTACT: "mailto:a@example.com",
      SECURITY_TXT_EXPIRES: "2027-10-31T00:00:00Z",
    };
    expect(parseConfig({ ...fields, ORIGIN: "https://example.com" }).securityTxt).toEqual({
      contact: ["mailto:a@example.com"],
      expires: new Date("2027-10-31T00:00:00Z"),
      policy: null,
      canonical: "https://example.com/.well-known/security.txt",
    });
    expect(parseConfig({}).securityTxt).toBeNull();
    for (const [name, value] of Object.entries(fields))
      expect(() => parseConfig({ [name]: value })).toThrow(
        /^Invalid environment variable SECURITY_TXT_/,
      );
  });
});
