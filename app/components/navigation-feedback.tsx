import { useFetchers, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { useTranslate } from "~/i18n/translate";

const PROGRESS_DELAY_MS = 150;

/** False on the server and in the first client render, so JavaScript-only UI never reaches a no-JS page. */
function useHydrated() {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}

function subscribeToNothing() {
  return () => {};
}

/** A thin bar at the top while a navigation or submission takes longer than a moment. */
export function NavigationProgress() {
  const hydrated = useHydrated();
  const navigation = useNavigation();
  const fetchers = useFetchers();
  const t = useTranslate();
  const busy = navigation.state !== "idle" || fetchers.some((fetcher) => fetcher.state !== "idle");
  const [delayPassed, setDelayPassed] = useState(false);

  useEffect(() => {
    if (!busy) return;
    const timer = setTimeout(() => setDelayPassed(true), PROGRESS_DELAY_MS);
    return () => {
      clearTimeout(timer);
      setDelayPassed(false);
    };
  }, [busy]);

  if (!hydrated || !busy || !delayPassed) return null;
  const loading = t("layout.loading");
  return (
    <div
      className="navigation-progress"
      role="progressbar"
      aria-label={loading}
      aria-valuetext={loading}
    />
  );
}

/** Announces a client-side navigation's new title to screen readers, as a full page load would. */
export function RouteAnnouncer() {
  const hydrated = useHydrated();
  const { pathname } = useLocation();
  const [announcement, setAnnouncement] = useState("");
  const previousPathname = useRef(pathname);

  useEffect(() => {
    if (pathname === previousPathname.current) return;
    previousPathname.current = pathname;
    // The new title is in the document only after this render has been committed.
    const frame = requestAnimationFrame(() => setAnnouncement(document.title));
    return () => cancelAnimationFrame(frame);
  }, [pathname]);

  if (!hydrated) return null;
  return (
    <div className="visually-hidden" aria-live="polite" aria-atomic="true">
      {announcement}
    </div>
  );
}
