import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { STORED_ENCODINGS } from "./static-files";

// Text the browser build holds; images and fonts are compressed already.
const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".map", ".json", ".svg", ".txt", ".html"]);

const compressors = {
  br: (file: Buffer) =>
    brotliCompressSync(file, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: file.length,
      },
    }),
  gzip: (file: Buffer) => gzipSync(file, { level: constants.Z_BEST_COMPRESSION }),
};

/** Writes `name.br` and `name.gz` beside each text file of the browser build where they are smaller. */
function precompress(directory: string) {
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !COMPRESSIBLE.has(path.extname(entry.name))) continue;
    const file = path.join(entry.parentPath, entry.name);
    const content = readFileSync(file);
    for (const { encoding, extension } of STORED_ENCODINGS) {
      const compressed = compressors[encoding](content);
      if (compressed.length < content.length) writeFileSync(file + extension, compressed);
    }
  }
}

const directory = process.argv[2];
if (!directory || !statSync(directory, { throwIfNoEntry: false })?.isDirectory()) {
  process.stderr.write("usage: precompress <directory of the browser build>\n");
  process.exit(1);
}
precompress(directory);
