import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";

/** How the token endpoint answers: a valid ID token, or one thing wrong with it or with the answer. */
export type TokenAnswer =
  | "valid"
  | "bad-signature"
  | "wrong-issuer"
  | "wrong-audience"
  | "expired"
  | "wrong-nonce"
  | "hang"
  | "error-500"
  | "garbage";

export type ScriptedProvider = {
  issuer: string;
  clientId: string;
  answer: TokenAnswer;
  close: () => Promise<void>;
};

/**
 * An OpenID provider scripted by the test, on 127.0.0.1: discovery, JWKS, an authorization
 * endpoint that sends the visitor straight back with a code, and a token endpoint that answers
 * as `answer` says, signing ID tokens with jose (with a key it does not publish for a bad signature).
 */
export async function startScriptedProvider(): Promise<ScriptedProvider> {
  const clientId = "web-app";
  const [published, unpublished] = await Promise.all([generateKeyPair("RS256"), generateKeyPair("RS256")]);
  const jwk: JWK = { ...(await exportJWK(published.publicKey)), kid: "published", alg: "RS256", use: "sig" };
  const nonces = new Map<string, string>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, issuer);
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/.well-known/openid-configuration") {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
      });
    }
    if (url.pathname === "/jwks") return json(200, { keys: [jwk] });
    if (url.pathname === "/authorize") {
      const code = crypto.randomUUID();
      nonces.set(code, url.searchParams.get("nonce") ?? "");
      const back = new URL(url.searchParams.get("redirect_uri")!);
      back.search = new URLSearchParams({ code, state: url.searchParams.get("state") ?? "" }).toString();
      return res.writeHead(303, { location: back.href }).end();
    }
    if (url.pathname !== "/token") return json(404, { error: "not_found" });
    let body = "";
    for await (const chunk of req) body += chunk;
    const code = new URLSearchParams(body).get("code") ?? "";
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: scripted.answer === "wrong-issuer" ? "https://other.example" : issuer,
      aud: scripted.answer === "wrong-audience" ? "another-client" : clientId,
      sub: "mallory",
      name: "Mallory",
      nonce: scripted.answer === "wrong-nonce" ? "another-nonce" : nonces.get(code),
      iat: scripted.answer === "expired" ? now - 7_200 : now,
      exp: scripted.answer === "expired" ? now - 3_600 : now + 300,
    };
    const key = scripted.answer === "bad-signature" ? unpublished.privateKey : published.privateKey;
    const idToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "published" })
      .sign(key);
    switch (scripted.answer) {
      case "hang":
        hanging.add(res);
        return;
      case "error-500":
        return json(500, { error: "server_error" });
      case "garbage":
        return res.writeHead(200, { "content-type": "application/json" }).end("<html>not json");
      default:
        return json(200, {
          access_token: "an-access-token",
          token_type: "Bearer",
          expires_in: 300,
          id_token: idToken,
        });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const scripted: ScriptedProvider = {
    issuer,
    clientId,
    answer: "valid",
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return scripted;
}
