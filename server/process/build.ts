import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";
import type { AppEntry } from "../app";

/** The Remix build, loaded from the working directory, as it serves pages. */
export const build = (await import(
  pathToFileURL(path.resolve("build/index.js")).href
)) as ServerBuild;

/** What the server takes from the build (decision 020): configuration, logger, call outcomes. */
export const app = build.entry.module as unknown as AppEntry;
