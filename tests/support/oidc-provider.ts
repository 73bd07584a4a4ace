import {
  startSignInProvider,
  type Account,
  type SignInProvider,
  type SignInProviderOptions,
} from "../../server/api-mock/sign-in";

export type OpenIdProvider = SignInProvider & {
  /** Who may sign in, by login name (any password): the dev login page's "login" field. */
  accounts: Map<string, Account>;
};

export type OpenIdProviderOptions = Omit<SignInProviderOptions, "findAccount">;

/** The development sign-in provider (server/api-mock/sign-in.ts), with two accounts to start. */
export async function startOpenIdProvider(options: OpenIdProviderOptions): Promise<OpenIdProvider> {
  const accounts = new Map<string, Account>([
    ["ada", { name: "Ada Lovelace", roles: ["editor"] }],
    ["bob", { name: "Bob Visitor", roles: [] }],
  ]);
  const provider = await startSignInProvider({
    ...options,
    findAccount: (login) => accounts.get(login),
  });
  return { ...provider, accounts };
}

/** The app's environment for sign-in with `provider`. */
export function signInEnv(provider: SignInProvider, origin: string) {
  return {
    ORIGIN: origin,
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
  };
}
