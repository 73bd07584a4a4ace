import { afterEach, describe, expect, it } from "vitest";
import { getSetupPlan, requireSystemBinary, systemPackages } from "../toolchain/system-packages";

const [chromium, nginx] = systemPackages;

describe("the system packages npm test needs", () => {
  afterEach(() => {
    delete process.env.NGINX_PATH;
  });

  it("does nothing when everything is there", () => {
    expect(getSetupPlan([], { isRoot: false, hasAptGet: false })).toEqual({ action: "none" });
  });

  it("installs as root with apt-get, saying what and why in one line", () => {
    expect(getSetupPlan([chromium, nginx], { isRoot: true, hasAptGet: true })).toEqual({
      action: "install",
      packages: ["chromium-headless-shell", "nginx-light"],
      line: "Installing chromium-headless-shell, nginx-light with apt-get: the browser tests and the scale-out test need them.",
    });
  });

  it("stops with the command to run when it cannot install", () => {
    const asUser = getSetupPlan([nginx], { isRoot: false, hasAptGet: true });
    expect(asUser).toEqual({
      action: "stop",
      line: "npm test needs /usr/sbin/nginx (the scale-out test): run `sudo apt-get install -y nginx-light` (or set NGINX_PATH), then npm test again.",
    });
    const withoutApt = getSetupPlan([nginx], { isRoot: true, hasAptGet: false });
    expect(withoutApt).toMatchObject({
      action: "stop",
      line: expect.stringContaining("`apt-get install -y nginx-light`"),
    });
  });

  it("stops when an override points at nothing, since installing would not help", () => {
    process.env.NGINX_PATH = "/nowhere/nginx";
    expect(getSetupPlan([nginx], { isRoot: true, hasAptGet: true })).toEqual({
      action: "stop",
      line: "NGINX_PATH=/nowhere/nginx names no file: point it at the binary, or unset it.",
    });
    expect(() => requireSystemBinary("nginx-light")).toThrow(
      "/nowhere/nginx (the scale-out test) not found: `npm test` installs it or says how (or set NGINX_PATH).",
    );
  });
});
