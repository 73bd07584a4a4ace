import { createContext, useContext } from "react";

const NonceContext = createContext("");

/** Provides the request's Content-Security-Policy nonce to the server render. */
export const NonceProvider = NonceContext.Provider;

/**
 * The nonce inline scripts need. Browsers hide nonce attributes from script, so in the browser
 * this is "" and hydration keeps the attribute the server rendered.
 */
export function useNonce() {
  return useContext(NonceContext);
}
