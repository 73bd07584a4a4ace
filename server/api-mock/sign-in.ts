import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type KoaContextWithOIDC } from "oidc-provider";

// A sign-in provider for development and the tests: the certified oidc-provider on 127.0.0.1
// (a development dependency, never in the production image).

export type Account = { name: string; roles: string[] };

export type SignInProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Token requests received so far, by grant type. */
  tokenRequests: string[];
  close: () => Promise<void>;
};

export type SignInProviderOptions = {
  /** The app's ORIGIN: its callback and the address it is sent back to after logout. */
  appOrigins: string[];
  /** Who signs in with a login name (any password), or undefined to refuse it. */
  findAccount: (login: string) => Account | undefined;
  accessTokenSeconds?: number;
  idTokenSeconds?: number;
};

/**
 * One confidential client for the app, the dev login pages (plain HTML forms that work without
 * JavaScript), consent given in advance, refresh tokens, RP-initiated logout, and the account's
 * name and roles in the ID token.
 */
export async function startSignInProvider({
  appOrigins,
  findAccount,
  accessTokenSeconds = 300,
  idTokenSeconds = 300,
}: SignInProviderOptions): Promise<SignInProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tokenRequests: string[] = [];
  const clientId = "web-app";
  const clientSecret = randomBytes(24).toString("base64url");
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: appOrigins.map((origin) => `${origin}/auth/callback`),
        post_logout_redirect_uris: appOrigins.map((origin) => `${origin}/`),
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      },
    ],
    async findAccount(_ctx, sub) {
      const account = findAccount(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, ...account }) };
    },
    claims: { openid: ["sub"], profile: ["name", "roles"] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    pkce: { required: () => true },
    issueRefreshToken: async () => true,
    ttl: {
      AccessToken: accessTokenSeconds,
      IdToken: idTokenSeconds,
      RefreshToken: 3_600,
      Grant: 3_600,
      Session: 3_600,
      Interaction: 600,
    },
    // Every scope and claim asked for is granted, so the login form is the only interaction.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const { Grant } = ctx.oidc.provider;
      const session = ctx.oidc.session!;
      const clientId = ctx.oidc.client!.clientId;
      const grantId = session.grantIdFor(clientId);
      const existing = grantId ? await Grant.find(grantId) : undefined;
      if (existing) return existing;
      const grant = new Grant({ accountId: session.accountId!, clientId });
      grant.addOIDCScope(String(ctx.oidc.params!.scope));
      await grant.save();
      return grant;
    },
    cookies: { keys: [randomBytes(24).toString("base64url")] },
  });
  provider.on("grant.success", (ctx: KoaContextWithOIDC) => {
    tokenRequests.push(String(ctx.oidc.params?.grant_type));
  });
  server.on("request", provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    tokenRequests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
