import { z } from "zod";
import { getConfig } from "~/lib/config.server";
import { defineCall } from "./client.server";

/** The API's health path, asked by /readyz: a 2xx, or a refused anonymous GET, says it is up. */
export const getApiHealth = defineCall({
  name: "readiness",
  method: "GET",
  path: getConfig().API_HEALTH_PATH,
  response: z.unknown(),
  retry: false,
  errors: {
    401: "SIGN_IN_REQUIRED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
  },
});
