import { getConfig } from "~/lib/config.server";
import type { Call } from "./call";

/** The API's health path, asked by /readyz, in no contract: any 2xx, or a refused anonymous GET. */
export const getApiHealth: Call = {
  name: "readiness",
  method: "GET",
  path: getConfig().API_HEALTH_PATH as Call["path"],
  retry: false,
  errors: {
    401: "SIGN_IN_REQUIRED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
  },
};
