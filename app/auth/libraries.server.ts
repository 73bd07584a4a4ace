/*
 * The libraries sign-in uses, loaded on first use so that with sign-in off none of them is.
 * Their names are held in variables so that no browser build makes a chunk of them: the
 * reference app's build (tests/fixtures/reference-app) reuses this app's routes, and Remix
 * empties `.server` modules only for imports made from inside its own app directory.
 */
import type * as OpenIdClient from "openid-client";
import type * as Redis from "redis";

const OPENID_CLIENT = "openid-client";
const REDIS = "redis";

export const loadOpenIdClient = () =>
  import(/* @vite-ignore */ OPENID_CLIENT) as Promise<typeof OpenIdClient>;

export const loadRedis = () => import(/* @vite-ignore */ REDIS) as Promise<typeof Redis>;
