import type { LinksFunction, MetaFunction } from "@remix-run/node";
import { Links, Meta, Outlet, Scripts, ScrollRestoration } from "@remix-run/react";
import type { ReactNode } from "react";
import { GeneralErrorBoundary } from "./components/error-boundary";
import { APP_DESCRIPTION, APP_NAME } from "./constants";
import { useNonce } from "./nonce";
import stylesHref from "./styles.css";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesHref },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to main content
        </a>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export const meta: MetaFunction = () => [
  { title: APP_NAME },
  { name: "description", content: APP_DESCRIPTION },
];

/** Reached only when the site layout itself fails, so it renders its own landmark. */
export function ErrorBoundary() {
  return (
    <main id="main" tabIndex={-1}>
      <GeneralErrorBoundary />
    </main>
  );
}
