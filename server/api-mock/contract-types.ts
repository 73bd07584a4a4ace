import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import prettier from "prettier";
import { listContracts } from "./contracts";

// `npm run contracts`: each contract's types beside it (`things.yaml` → `things.d.ts`), which
// `forContract` holds the calls to; `--check` only says which are stale.

/** Each contract of `dir`, its types as generated now, and whether the file on disk has them. */
export async function generateContractTypes(dir: string) {
  return Promise.all(
    listContracts(dir).map(async (contract) => {
      const file = contract.replace(/\.yaml$/, ".d.ts");
      const generated = COMMENT_HEADER + astToString(await openapiTS(pathToFileURL(contract)));
      const config = await prettier.resolveConfig(file);
      const types = await prettier.format(generated, { ...config, filepath: file });
      const written = existsSync(file) ? readFileSync(file, "utf8") : undefined;
      return { file, types, fresh: written === types };
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const dirs = process.argv.slice(2).filter((arg) => arg !== "--check");
  for (const { file, types, fresh } of (
    await Promise.all(dirs.map(generateContractTypes))
  ).flat()) {
    if (fresh) continue;
    if (check) process.exitCode = 1;
    else writeFileSync(file, types);
    console.log(`${check ? "stale" : "written"}: ${file}`);
  }
}
