import { createContext, useContext } from "react";

const NonceContext = createContext("");

/** Provides the request's Content-Security-Policy nonce to the server render. */
export const NonceProvider = NonceContext.Provider;

/** The CSP nonce; "" in the browser, which hides nonces from script (hydration keeps the server's). */
export function useNonce() {
  return useContext(NonceContext);
}
