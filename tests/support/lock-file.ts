type LockEntry = { version?: string; optionalDependencies?: Record<string, string> };
export type LockFile = { packages: Record<string, LockEntry> };

/** The entry npm uses for `dependency` of `from`: its own node_modules first, then each one up. */
export function resolveLockEntry(lock: LockFile, from: string, dependency: string) {
  for (
    let folder = from;
    ;
    folder = folder.slice(0, Math.max(folder.lastIndexOf("/node_modules/"), 0))
  ) {
    const candidate = `${folder ? `${folder}/` : ""}node_modules/${dependency}`;
    if (candidate in lock.packages) return candidate;
    if (!folder) return undefined;
  }
}

const isExactVersion = (range: string) => /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range);

/** Optional dependencies without an entry of the exact version asked, as `package > dep@range`. */
export function findMissingOptionalEntries(lock: LockFile) {
  return Object.entries(lock.packages).flatMap(([from, entry]) =>
    Object.entries(entry.optionalDependencies ?? {})
      .filter(([dependency, range]) => {
        const resolved = resolveLockEntry(lock, from, dependency);
        return !resolved || (isExactVersion(range) && lock.packages[resolved]!.version !== range);
      })
      .map(([dependency, range]) => `${from || "(root)"} > ${dependency}@${range}`),
  );
}
