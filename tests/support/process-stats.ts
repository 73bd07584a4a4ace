import { readdirSync, readFileSync, readlinkSync } from "node:fs";

// Figures about a server process read from /proc (Linux), as its tests measure them.

export function readRssMegabytes(pid: number) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match![1]) / 1024;
}

/** CPU ms the event loop's thread has had: no stretch of it between two readings was longer. */
export function readMainThreadCpuMs(pid: number) {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
}

/** Sockets the process holds open (its listener and every connection). */
export function countOpenSockets(pid: number) {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:");
    } catch {
      return false; // closed between the listing and the reading
    }
  }).length;
}
