import { createContext, useContext } from "react";

const NonceContext = createContext("");

export const NonceProvider = NonceContext.Provider;

/** The CSP nonce; "" in the browser, which hides nonces from script (hydration keeps the server's). */
export function useNonce() {
  return useContext(NonceContext);
}
