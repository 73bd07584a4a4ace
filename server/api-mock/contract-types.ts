import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import prettier from "prettier";
import { parse } from "yaml";
import { listContracts } from "./contracts";

// `npm run contracts`: beside each contract (`things.yaml`), the document as JSON, which the app
// imports (`things.json`), and its types (`things.d.json.ts`, TypeScript's declaration of that
// JSON module); `--check` only says which are stale.

const TYPES_HEADER = `${COMMENT_HEADER}import type { Contract } from "~/api/call";\n`;
const TYPES_FOOTER = "\ndeclare const contract: Contract<paths>;\nexport default contract;\n";

type File = [path: string, text: string];

/** Each file generated from the contracts of `dir`, as it is now, and whether the disk has it. */
export async function generateContractFiles(dir: string) {
  const files = await Promise.all(
    listContracts(dir).flatMap((contract): (File | Promise<File>)[] => [
      [contract.replace(/\.yaml$/, ".json"), JSON.stringify(parse(readFileSync(contract, "utf8")))],
      openapiTS(pathToFileURL(contract)).then((ast): File => [
        contract.replace(/\.yaml$/, ".d.json.ts"),
        TYPES_HEADER + astToString(ast) + TYPES_FOOTER,
      ]),
    ]),
  );
  return Promise.all(
    files.map(async ([file, text]) => {
      const config = await prettier.resolveConfig(file);
      const formatted = await prettier.format(text, { ...config, filepath: file });
      const written = existsSync(file) ? readFileSync(file, "utf8") : undefined;
      return { file, text: formatted, fresh: written === formatted };
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const dirs = process.argv.slice(2).filter((arg) => arg !== "--check");
  for (const { file, text, fresh } of (await Promise.all(dirs.map(generateContractFiles))).flat()) {
    if (fresh) continue;
    if (check) process.exitCode = 1;
    else writeFileSync(file, text);
    console.log(`${check ? "stale" : "written"}: ${file}`);
  }
}
