import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readDockerfile } from "../support/dockerfile";
import { projectRoot } from "../support/server";
import { getMajor, IMAGE_NODE_VERSION } from "../toolchain/image-node";

describe("the Node versions", () => {
  it("tests on the Node major every stage of the Dockerfile starts from", () => {
    const images = readDockerfile().map((stage) => stage.image);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image, "FROM must name the node image").toMatch(/^node:\d+/);
    expect(images.map(getMajor), "IMAGE_NODE_VERSION in tests/toolchain/image-node.ts").toEqual(
      images.map(() => getMajor(IMAGE_NODE_VERSION)),
    );
  });

  it("declares in engines the majors npm test runs on", () => {
    const { engines } = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8"));
    const majors = [...(engines.node as string).matchAll(/\^(\d+)\./g)].map(([, major]) =>
      Number(major),
    );
    expect(majors).toContain(getMajor(process.versions.node));
    expect(majors).toContain(getMajor(IMAGE_NODE_VERSION));
  });
});
