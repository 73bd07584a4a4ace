import { createSign, generateKeyPairSync, type KeyObject } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { buildReferenceApp } from "./reference-app";
import {
  expectNoServerErrors,
  HANG_TIMEOUT_MS,
  reservePort,
  startServer,
  type RunningServer,
} from "./server";
import { startUpstream, type Upstream } from "./upstream";

type BadIdToken = "bad-signature" | "wrong-issuer" | "wrong-audience" | "expired" | "wrong-nonce";

/** How the token endpoint answers: a valid ID token, or one thing wrong with it or the answer. */
export type TokenAnswer =
  "valid" | BadIdToken | "hang" | "stall" | "error-500" | "garbage" | "huge";

/** How discovery answers: the document, one far larger (its length declared or not), or a stall. */
export type DiscoveryAnswer = "valid" | "huge" | "huge-declared" | "stall";

/** The size of a huge answer, streamed a block at a time as the app reads it. */
export const HUGE_ANSWER_BYTES = 128 * 1024 * 1024;

export type ScriptedProvider = {
  issuer: string;
  clientId: string;
  /** How the token endpoint answers the next code or refresh token. */
  answer: TokenAnswer;
  discovery: DiscoveryAnswer;
  /** Who the next ID token names. */
  subject: { sub: string; name: string; roles: string[] };
  /** The next token answer's access token, its type and lifetime. */
  accessToken: string;
  tokenType: string;
  expiresIn: number;
  /** Token requests received so far, by grant type. */
  tokenRequests: string[];
  /** The token endpoint answers once this settles (a refresh held in flight). */
  hold: Promise<unknown>;
  /** Bytes of huge answers the app took before it closed the connection, one entry per answer. */
  hugeBytesTaken: number[];
  close: () => Promise<void>;
};

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

function signJwt(claims: Record<string, unknown>, key: KeyObject) {
  const input = `${encode({ alg: "RS256", kid: "published" })}.${encode(claims)}`;
  return `${input}.${createSign("RSA-SHA256").update(input).sign(key, "base64url")}`;
}

/**
 * An OpenID provider scripted by the test, on 127.0.0.1: discovery, JWKS, an authorization
 * endpoint that sends the visitor straight back with a code, and a token endpoint for codes and
 * refresh tokens that answers as `answer` says, signing ID tokens with a key it publishes (or one
 * it does not, for a bad signature). A huge answer is streamed, never held in memory.
 */
export async function startScriptedProvider(): Promise<ScriptedProvider> {
  const clientId = "web-app";
  const [published, unpublished] = [0, 1].map(() =>
    generateKeyPairSync("rsa", { modulusLength: 2048 }),
  );
  const jwk = {
    ...published!.publicKey.export({ format: "jwk" }),
    kid: "published",
    alg: "RS256",
    use: "sig",
  };
  const nonces = new Map<string, string>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, issuer);
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/.well-known/openid-configuration") {
      if (scripted.discovery === "stall") return stall(res);
      if (scripted.discovery !== "valid")
        return streamHuge(res, scripted.discovery === "huge-declared");
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
        grant_types_supported: ["authorization_code", "refresh_token"],
      });
    }
    if (url.pathname === "/jwks") return json(200, { keys: [jwk] });
    if (url.pathname === "/authorize") {
      const code = crypto.randomUUID();
      nonces.set(code, url.searchParams.get("nonce") ?? "");
      const back = new URL(url.searchParams.get("redirect_uri")!);
      const state = url.searchParams.get("state") ?? "";
      back.search = new URLSearchParams({ code, state }).toString();
      return res.writeHead(303, { location: back.href }).end();
    }
    if (url.pathname !== "/token") return json(404, { error: "not_found" });
    let body = "";
    for await (const chunk of req) body += chunk;
    const form = new URLSearchParams(body);
    const grantType = form.get("grant_type") ?? "";
    scripted.tokenRequests.push(grantType);
    await scripted.hold;
    const now = Math.floor(Date.now() / 1000);
    const nonce =
      scripted.answer === "wrong-nonce" ? "another-nonce" : nonces.get(form.get("code") ?? "");
    const claims = {
      iss: scripted.answer === "wrong-issuer" ? "https://other.example" : issuer,
      aud: scripted.answer === "wrong-audience" ? "another-client" : clientId,
      ...scripted.subject,
      // A refreshed ID token carries no nonce (OpenID Connect Core 12.2).
      ...(grantType === "authorization_code" && { nonce }),
      iat: scripted.answer === "expired" ? now - 7_200 : now,
      exp: scripted.answer === "expired" ? now - 3_600 : now + 300,
    };
    const key =
      scripted.answer === "bad-signature" ? unpublished!.privateKey : published!.privateKey;
    switch (scripted.answer) {
      case "hang":
        hanging.add(res);
        return;
      case "stall":
        return stall(res);
      case "error-500":
        return json(500, { error: "server_error" });
      case "garbage":
        return res.writeHead(200, { "content-type": "application/json" }).end("<html>not json");
      case "huge":
        return streamHuge(res, false);
      default:
        return json(200, {
          access_token: scripted.accessToken,
          token_type: scripted.tokenType,
          expires_in: scripted.expiresIn,
          refresh_token: crypto.randomUUID(),
          id_token: signJwt(claims, key),
        });
    }
  });

  // An answer whose headers and first byte come, and nothing after.
  function stall(res: http.ServerResponse) {
    hanging.add(res);
    res.writeHead(200, { "content-type": "application/json" }).write("{");
  }

  // JSON that never ends, a block at a time as the reader takes them; counts what it took.
  function streamHuge(res: http.ServerResponse, declareLength: boolean) {
    const index = scripted.hugeBytesTaken.push(0) - 1;
    const block = Buffer.alloc(64 * 1024, "a");
    res.writeHead(200, {
      "content-type": "application/json",
      ...(declareLength ? { "content-length": String(HUGE_ANSWER_BYTES) } : {}),
    });
    res.write('{"access_token":"');
    const writeMore = () => {
      while (!res.destroyed && scripted.hugeBytesTaken[index]! < HUGE_ANSWER_BYTES) {
        scripted.hugeBytesTaken[index]! += block.byteLength;
        if (!res.write(block)) return void res.once("drain", writeMore);
      }
      if (!res.destroyed) res.end();
    };
    res.on("close", () => res.destroy());
    writeMore();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const scripted: ScriptedProvider = {
    issuer,
    clientId,
    answer: "valid",
    discovery: "valid",
    subject: { sub: "mallory", name: "Mallory", roles: [] },
    accessToken: "an-access-token",
    tokenType: "Bearer",
    expiresIn: 300,
    tokenRequests: [],
    hold: Promise.resolve(),
    hugeBytesTaken: [],
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return scripted;
}

type SuiteOptions = {
  scheme?: string;
  /** More of the server's environment; a function is called when the server starts. */
  env?: Record<string, string> | (() => Record<string, string>);
  /** 5xx statuses the suite provokes on purpose. */
  expectedStatuses?: number[];
  /** Serve the reference app (its guarded write calls the API on the visitor's behalf). */
  referenceApp?: boolean;
};

export type ScriptedSuite = { provider: ScriptedProvider; app: RunningServer; upstream: Upstream };

/**
 * A built server signing in through a scripted provider (and a scripted API behind
 * API_BASE_URL), for the enclosing `describe`; after its tests, no 5xx but `expectedStatuses`
 * and no error-level log line.
 */
export function startSuiteWithScriptedProvider({
  scheme = "http",
  env = {},
  expectedStatuses = [],
  referenceApp = false,
}: SuiteOptions = {}) {
  const suite = {} as ScriptedSuite;
  beforeAll(async () => {
    const [listener, cwd] = await Promise.all([
      reservePort(),
      referenceApp ? buildReferenceApp() : undefined,
    ]);
    [suite.provider, suite.upstream] = await Promise.all([
      startScriptedProvider(),
      startUpstream(),
    ]);
    suite.app = await startServer(
      {
        ORIGIN: `${scheme}://127.0.0.1:${listener.port}`,
        OIDC_ISSUER: suite.provider.issuer,
        OIDC_CLIENT_ID: suite.provider.clientId,
        API_BASE_URL: suite.upstream.url,
        ...(typeof env === "function" ? env() : env),
      },
      { cwd, listener },
    );
  }, HANG_TIMEOUT_MS);
  afterAll(async () => {
    try {
      if (suite.app) expectNoServerErrors(suite.app, expectedStatuses);
    } finally {
      await Promise.all([suite.app?.stop(), suite.provider?.close(), suite.upstream?.close()]);
    }
  });
  return suite;
}

/** Starts a sign-in at the app and follows the scripted provider straight back to the callback. */
export async function signInScripted(
  browser: { fetch: (url: string, init?: RequestInit) => Promise<Response> },
  app: RunningServer,
  redirectTo = "/",
) {
  const start = await browser.fetch(
    `${app.url}/auth/sign-in?${new URLSearchParams({ redirectTo })}`,
  );
  if (start.status !== 303) return start;
  const authorize = await browser.fetch(start.headers.get("location")!);
  return browser.fetch(authorize.headers.get("location")!);
}
