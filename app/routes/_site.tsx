import { Link, Outlet, useLoaderData } from "@remix-run/react";
import { getPublicConfig } from "~/config.server";

export function loader() {
  return getPublicConfig();
}

/** The frame every page renders in: header, main content and footer. */
export default function SiteLayout() {
  const { appName, version } = useLoaderData<typeof loader>();
  return (
    <>
      <header className="site-header">
        <Link to="/" className="site-name">
          {appName}
        </Link>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="site-footer">
        <p>Version {version}</p>
      </footer>
    </>
  );
}
