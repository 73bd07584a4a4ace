import { useMatches } from "@remix-run/react";
import { useEffect } from "react";
import type { Metric } from "web-vitals";
import { WEB_VITALS_PATH } from "./constants";

let started = false;

/**
 * Measures the page's web vitals once it has hydrated (the library is a chunk of its own, loaded
 * then) and sends those measured so far, with the route id of the page loaded, in one beacon
 * each time the page is hidden, as URL-encoded fields (`route`, then `LCP=…`, `CLS=…` …). A
 * client-side navigation starts no new measure.
 */
export function useWebVitals() {
  const routeId = useMatches().at(-1)?.id;
  useEffect(() => {
    if (started || !routeId) return;
    started = true;
    void import("web-vitals").then(({ onCLS, onFCP, onINP, onLCP, onTTFB }) => {
      const measured = new Map<string, number>();
      const keep = ({ name, value }: Metric) => measured.set(name, value);
      for (const measure of [onCLS, onFCP, onINP, onLCP, onTTFB]) measure(keep);
      const send = (event: Event) => {
        const hidden = event.type === "pagehide" || document.visibilityState === "hidden";
        if (!hidden || measured.size === 0) return;
        const fields = new URLSearchParams({ route: routeId });
        for (const [name, value] of measured) fields.set(name, String(value));
        measured.clear();
        navigator.sendBeacon(WEB_VITALS_PATH, fields);
      };
      addEventListener("visibilitychange", send);
      addEventListener("pagehide", send);
    });
  }, [routeId]);
}
